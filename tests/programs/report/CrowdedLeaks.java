// SPDX-License-Identifier: Apache-2.0
// CrowdedLeaks: one leak repeated 260 times (closed screens a static list still holds) and
// one other leak seen once (a listener an event bus keeps at the end of a chain), every leaked object watched
// through LeakCanary's KeyedWeakReference. The first group alone has more traces than the
// report's page carries. Writes a heap dump to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

public class CrowdedLeaks {
    static final class Screen {
        final byte[] pixels = new byte[256];
        boolean closed;
    }

    static final class Listener {
        final char[] name = "payments".toCharArray();
    }

    static final class ScreenStack {
        static final List<Screen> OPENED = new ArrayList<>();
    }

    static final class Node {
        Object next;
    }

    static final class EventBus {
        static Node subscribers; /* a chain of nodes, longer than the screens' paths */
    }

    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();

    static void watch(Object o, String what) {
        KeyedWeakReference r = new KeyedWeakReference(o, "k" + WATCHED.size(), what, 1000L, QUEUE);
        r.retainedUptimeMillis = 7000L;
        WATCHED.add(r);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 260; i++) {
            Screen s = new Screen();
            s.closed = true;
            ScreenStack.OPENED.add(s);
            watch(s, "closed screen");
        }
        Listener l = new Listener();
        Node n = new Node();
        EventBus.subscribers = n;
        for (int i = 0; i < 6; i++) {
            Node m = new Node();
            n.next = m;
            n = m;
        }
        n.next = l;
        watch(l, "unsubscribed listener");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
