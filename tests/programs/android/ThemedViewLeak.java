// SPDX-License-Identifier: Apache-2.0
// ThemedViewLeak.java: views of destroyed activities whose context is a ContextThemeWrapper
// around the activity, as most views' are (AppCompat inflation, a dialog's content): one still
// attached to its window (a ViewRootImpl parent, mAttachInfo set) kept by the static
// Tracker.lastDialog, one detached kept in the static list Cache.views. Wrappers on a leak's
// path: Tracker.wrapper, a ContextThemeWrapper around a ContextWrapper around a third
// destroyed activity, and Tracker.plain, a wrapper of no component (mBase null) whose own
// field holds a fourth. Usage: java ThemedViewLeak OUT.hprof
import android.app.Activity;
import android.view.ContextThemeWrapper;
import android.view.View;
import android.view.ViewRootImpl;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class ThemedViewLeak {
    static class DialogActivity extends Activity {}

    static class ListActivity extends Activity {}

    static class SettingsActivity extends Activity {}

    static class PlainWrapper extends ContextThemeWrapper {
        Activity last;

        PlainWrapper() {
            super(null);
        }
    }

    static class Tracker {
        static View lastDialog;
        static Object wrapper;
        static Object plain;
    }

    static class Cache {
        static final List<View> views = new ArrayList<>();
    }

    public static void main(String[] args) throws Exception {
        new android.os.Build();
        Activity host = new DialogActivity();
        View content = new View(new ContextThemeWrapper(host));
        content.mAttachInfo = new Object();
        content.mWindowAttachCount = 1;
        content.mParent = new ViewRootImpl(content, content.mContext);
        Tracker.lastDialog = content;
        host.mDestroyed = true;

        Activity list = new ListActivity();
        View row = new View(new ContextThemeWrapper(list));
        Cache.views.add(row);
        list.mDestroyed = true;
        Activity settings = new SettingsActivity();
        Tracker.wrapper = new ContextThemeWrapper(new android.content.ContextWrapper(settings));
        settings.mDestroyed = true;
        PlainWrapper plain = new PlainWrapper();
        plain.last = new SettingsActivity();
        plain.last.mDestroyed = true;
        Tracker.plain = plain;
        settings = null;
        plain = null;
        host = null;
        list = null;
        content = null;
        row = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
