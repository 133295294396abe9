// FfmDump: off-heap memory held through the FFM API (java.lang.foreign, JDK 22+), then a dump.
// usage: java -cp CLASSES FfmDump OUT.hprof
// Kept: a 20 MiB segment of a shared arena never closed, a 30 MiB segment of an automatic
// arena, a 10 MiB direct buffer (60 MiB off the heap). Freed: an 8 MiB segment of a confined
// arena closed before the dump.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

public class FfmDump {
    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        KEEP.add(Arena.ofShared().allocate(20L << 20));
        KEEP.add(Arena.ofAuto().allocate(30L << 20));
        KEEP.add(ByteBuffer.allocateDirect(10 << 20));
        try (Arena closed = Arena.ofConfined()) {
            closed.allocate(8L << 20);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
