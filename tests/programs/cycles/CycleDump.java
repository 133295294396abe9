// CycleDump: retain cycles a GC root holds beside cycles of the same shape that are garbage.
// usage: java -XX:+UseSerialGC -Xmn256m -cp CLASSES CycleDump OUT.hprof
// Rings: 2 Ring -> Ring -> Ring cycles held by the static KEPT, 1 only a SoftReference holds
// (kept while memory lasts), then 50 more left unreferenced;
// the dump is written without a GC first (live = false), as `jmap -dump` without `:live` and
// Android's dumps are, so the 50 are still in it. Screens: 3 Screen <-> lambda cycles (the
// lambda captures its Screen) held by the static SCREENS; the lambda's hidden class has an
// address in its name that changes from run to run.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.List;

public class CycleDump {
    static final class Ring {
        Ring next;
        final byte[] payload = new byte[1000];
    }

    static final class Screen {
        final String name;
        Runnable listener;

        Screen(String name) {
            this.name = name;
            listener = () -> System.out.println(this.name);
        }
    }

    static Ring[] KEPT;
    static SoftReference<Ring> SOFT;
    static final List<Screen> SCREENS = new ArrayList<>();

    static Ring ring() {
        Ring a = new Ring(), b = new Ring(), c = new Ring();
        a.next = b;
        b.next = c;
        c.next = a;
        return a;
    }

    public static void main(String[] args) throws Exception {
        KEPT = new Ring[] {ring(), ring()};
        SOFT = new SoftReference<>(ring());
        for (int i = 0; i < 50; i++)
            ring();
        for (int i = 0; i < 3; i++)
            SCREENS.add(new Screen("screen" + i));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], false);
    }
}
