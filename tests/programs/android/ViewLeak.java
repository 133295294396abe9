// SPDX-License-Identifier: Apache-2.0
// ViewLeak.java: a view hierarchy of a destroyed activity kept by a static (the classes are
// stand-ins for Android's, in their packages, with the fields android.rules reads): a
// ViewGroup with two child Views, one of them in a static list. Shark takes only the root of
// a hierarchy as a leaking object (and the activity), so this is one leak of two traces, the
// activity's reached through the child View. Usage: java ViewLeak OUT.hprof
import android.app.Activity;
import android.view.View;
import android.view.ViewGroup;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class ViewLeak {
    static final List<View> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        new android.os.Build();
        Activity activity = new Activity();
        activity.mDestroyed = true;
        ViewGroup root = new ViewGroup(activity);
        root.mWindowAttachCount = 1;
        for (int i = 0; i < 2; i++) {
            View child = new View(activity);
            child.mParent = root;
            child.mWindowAttachCount = 1;
            root.mChildren[i] = child;
        }
        KEPT.add(root.mChildren[0]);
        root = null;
        activity = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
