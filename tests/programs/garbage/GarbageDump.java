// GarbageDump: watched objects a dump written without a GC first holds in every way.
// usage: java -XX:+UseSerialGC -Xmn256m -cp CLASSES GarbageDump OUT.hprof
// Gone: 3 instances nothing references. Weak: 1 only a WeakReference holds (the next GC
// clears it). Soft: 1 only a SoftReference holds (kept while memory lasts). Held: 1 a static
// holds. Each class's only instances are these; the dump is written with live = false, as
// `jmap -dump` without `live` and Android's dumps are.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;

public class GarbageDump {
    static final class Gone { final byte[] payload = new byte[1000]; }
    static final class Weak { final byte[] payload = new byte[1000]; }
    static final class Soft { final byte[] payload = new byte[1000]; }
    static final class Held { final byte[] payload = new byte[1000]; }

    static WeakReference<Weak> WEAK;
    static SoftReference<Soft> SOFT;
    static Held HELD;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3; i++)
            new Gone().payload[0] = 1;
        WEAK = new WeakReference<>(new Weak());
        SOFT = new SoftReference<>(new Soft());
        HELD = new Held();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], false);
    }
}
