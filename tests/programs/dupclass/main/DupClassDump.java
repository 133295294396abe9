// SPDX-License-Identifier: Apache-2.0
// DupClassDump.java: loads the same class bytes (com.example.dup.Widget, compiled to the
// folder given as the first argument) through two URLClassLoaders with no parent in common
// but the bootstrap loader, keeps 3 instances of the first class and 5 of the second in a
// static list, chains the second loader's instances (each `next` points at the one before),
// and dumps the heap with HotSpotDiagnosticMXBean. A third loader's class and its instances
// are dropped before the dump (an unloaded class, when the JVM collects it).
// Usage: java DupClassDump WIDGET_CLASSES_DIR OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

public class DupClassDump {
    static final List<Object> FIRST = new ArrayList<>();
    static final List<Object> SECOND = new ArrayList<>();
    static ClassLoader loaderA, loaderB;

    static Constructor<?> widget(ClassLoader l) throws Exception {
        return l.loadClass("com.example.dup.Widget").getConstructor(int.class);
    }

    public static void main(String[] args) throws Exception {
        URL[] path = {new File(args[0]).toURI().toURL()};
        loaderA = new URLClassLoader(path, null);
        loaderB = new URLClassLoader(path, null);
        Constructor<?> a = widget(loaderA), b = widget(loaderB);
        if (a.getDeclaringClass() == b.getDeclaringClass())
            throw new IllegalStateException("the two loaders share one class");
        for (int i = 0; i < 3; i++)
            FIRST.add(a.newInstance(100 + i));
        Object prev = null;
        for (int i = 0; i < 5; i++) {
            Object w = b.newInstance(200 + i);
            w.getClass().getField("next").set(w, prev);
            prev = w;
        }
        SECOND.add(prev); // only the head: the rest hang off `next`
        // A third copy, dropped: garbage by the time the heap is dumped (live=true).
        URLClassLoader dropped = new URLClassLoader(path, null);
        Object gone = widget(dropped).newInstance(999);
        gone = null;
        dropped.close();
        dropped = null;
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[1], true);
    }
}
