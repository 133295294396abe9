// SPDX-License-Identifier: Apache-2.0
// TwoLoaders.java: two copies of one class, as a web application redeployed has them: the
// class Loaded (compiled into CLASSES_DIR, not on the class path) loaded by two
// URLClassLoaders, 5 instances of the first copy and 9 of the second kept in a static list.
// Usage: java TwoLoaders CLASSES_DIR OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

public class TwoLoaders {
    static final List<Object> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        URL[] path = {new File(args[0]).toURI().toURL()};
        int[] counts = {5, 9};
        for (int count : counts) {
            ClassLoader loader = new URLClassLoader(path, null);
            Class<?> c = loader.loadClass("Loaded");
            for (int i = 0; i < count; i++)
                KEPT.add(c.getConstructor(int.class).newInstance(i));
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[1], true);
    }
}
