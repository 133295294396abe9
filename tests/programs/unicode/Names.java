// Names.java: classes and fields named past the Basic Multilingual Plane (the JVM's modified
// UTF-8 writes such a character as a surrogate pair) and in other scripts, kept by a static
// and dumped; each holds a Screen through such a field. Writes the dump to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class Names {
    static class Screen {
    }

    static class Ünïcødé漢字𝒜Cache {
        final byte[] 𝓭𝓪𝓽𝓪 = new byte[4096];
        final Screen 𝓼𝓬𝓻𝓮𝓮𝓷 = new Screen();
    }

    static final List<Object> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3; i++)
            KEPT.add(new Ünïcødé漢字𝒜Cache());
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
