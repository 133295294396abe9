// SPDX-License-Identifier: Apache-2.0
// ShadowLeak.java: fields of the same name declared again by subclasses, and boxed fields,
// as rules and conditions read them. An app's BaseActivity declares its own mDestroyed (left
// false, as apps did for isDestroyed() before API 17) beside android.app.Activity's: 3
// destroyed MainActivity (BaseActivity) and 2 destroyed plain Activity are kept in a static
// list, so all 5 are leaking objects, as Shark reads Activity.mDestroyed. A custom View
// declares its own mContext (null) while View.mContext holds a destroyed activity. Tasks: a
// Base.closed shadowed by Task.closed, a Boolean, an Integer, a double and a char each, set
// per index i (0..9) as the test expects. Usage: java ShadowLeak OUT.hprof
import android.app.Activity;
import android.view.View;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class ShadowLeak {
    static class BaseActivity extends Activity {
        boolean mDestroyed; // the app's own, never set
    }

    static class MainActivity extends BaseActivity {}

    static class BadgeView extends View {
        Object mContext; // the view's own, never set

        BadgeView(Object context) {
            super(context);
        }
    }

    static class Base {
        boolean closed;
    }

    static class Task extends Base {
        boolean closed; // hides Base.closed
        Boolean done;
        Integer count;
        double weight;
        char grade;
    }

    static final List<Object> HISTORY = new ArrayList<>();
    static final List<Task> TASKS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        new android.os.Build();
        for (int i = 0; i < 5; i++) {
            Activity a = i < 3 ? new MainActivity() : new Activity();
            a.mDestroyed = true;
            HISTORY.add(a);
        }
        Activity gone = new MainActivity();
        gone.mDestroyed = true;
        View badge = new BadgeView(gone);
        badge.mAttachInfo = new Object();
        HISTORY.add(badge);
        for (int i = 0; i < 10; i++) {
            Task t = new Task();
            ((Base) t).closed = i < 6; // 6
            t.closed = i >= 6;         // 4
            t.done = i < 7 ? Boolean.TRUE : i == 7 ? Boolean.FALSE : null; // 7 true, 1 false
            t.count = i;               // > 5: 4
            t.weight = i * 0.5;        // > 2.5: 4
            t.grade = i < 3 ? 'x' : 'y';
            TASKS.add(t);
        }
        gone = null;
        badge = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
