// SPDX-License-Identifier: Apache-2.0
// ThemedViewLeak.java: views of destroyed activities whose context is a ContextThemeWrapper
// around the activity, as most views' are (AppCompat inflation, a dialog's content): one still
// attached to its window (a ViewRootImpl parent, mAttachInfo set) kept by the static
// Tracker.lastDialog, one detached kept in the static list Cache.views. Usage:
// java ThemedViewLeak OUT.hprof
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

    static class Tracker {
        static View lastDialog;
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
        host = null;
        list = null;
        content = null;
        row = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
