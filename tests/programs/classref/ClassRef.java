// ClassRef: a closed class loader kept only through a Class object one of its classes'
// holders keeps in a field (as an MBean's interface keeps its class): no instance, no
// thread, no static of its own. The JVM keeps the loader while the class lives.
// usage: java -cp CLASSES ClassRef PLUG_CLASSES_DIR OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;

public class ClassRef {
    static final class Registration {
        final Class<?> type;

        Registration(Class<?> type) {
            this.type = type;
        }
    }

    static Registration HELD;

    public static void main(String[] args) throws Exception {
        URLClassLoader loader = new URLClassLoader("plugin", new URL[] {new File(args[0]).toURI().toURL()},
                ClassRef.class.getClassLoader());
        HELD = new Registration(loader.loadClass("plug.Plug"));
        loader.close();
        loader = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[1], true);
    }
}
