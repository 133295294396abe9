// ShadowReferent.java: a WeakReference subclass that declares a strong field of its own named
// `referent`, holding a Screen; a static list holds the reference. A second Screen is held
// only by the inherited Reference.referent (weakly), through a plain WeakReference. Dumps to
// args[0] (unreachable objects too). The first Screen is strongly reachable (ITEMS ->
// ShadowRef.referent); the second is not.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

public class ShadowReferent {
    static class Screen {
        final byte[] pixels = new byte[10_000];
    }

    static class ShadowRef extends WeakReference<Object> {
        final Object referent; // a strong field that happens to share Reference's name

        ShadowRef(Object o) {
            super(o);
            this.referent = o;
        }
    }

    static final List<Object> ITEMS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        ITEMS.add(new ShadowRef(new Screen()));
        ITEMS.add(new WeakReference<Object>(new Screen()));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], false); // all objects: the weak Screen stays
    }
}
