// ThreeDumps.java: three heap dumps of one JVM for `leakray leaks` (memlab's method, which
// follows objects by id). Before the baseline: 500 Preexisting kept, 400 Doomed. Between the
// baseline and the target: the Doomed dropped, 1,000 LeakRec kept in a static list, 700
// Transient; each LeakRec names itself with a String made by concatenation (its value array,
// and the method handles the JVM links for the first concatenation, are new too), and the
// static list's backing array is reallocated. Between the target and the final dump: the Transient dropped, 123 LateAlloc kept.
// Each dump follows System.gc() (dumpHeap live=true collects again): under a collector that
// moves objects their ids (addresses) change, and the method cannot follow them; under
// Epsilon (no collection at all) every id stays, and the leak is exactly the 1,000 LeakRec.
// Usage: java ThreeDumps DIR
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class ThreeDumps {
    static class Preexisting { int i; Preexisting(int i) { this.i = i; } }
    static class Doomed { long a; Doomed(int i) { a = i; } }
    static class LeakRec {
        int id;
        String name;
        LeakRec(int i) { id = i; name = "rec-" + i; }
    }
    static class Transient { int t; Transient(int i) { t = i; } }
    static class LateAlloc { int l; LateAlloc(int i) { l = i; } }

    static List<Object> pre = new ArrayList<>(), doomed = new ArrayList<>();
    static List<Object> leakRecs = new ArrayList<>(), transients, late;

    static void dump(String f) throws Exception {
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(f, true);
    }

    public static void main(String[] a) throws Exception {
        for (int i = 0; i < 500; i++) pre.add(new Preexisting(i));
        for (int i = 0; i < 400; i++) doomed.add(new Doomed(i));
        dump(a[0] + "/baseline.hprof");
        doomed = null;
        for (int i = 0; i < 1000; i++) leakRecs.add(new LeakRec(i));
        transients = new ArrayList<>();
        for (int i = 0; i < 700; i++) transients.add(new Transient(i));
        dump(a[0] + "/target.hprof");
        transients = null;
        late = new ArrayList<>();
        for (int i = 0; i < 123; i++) late.add(new LateAlloc(i));
        dump(a[0] + "/final.hprof");
    }
}
