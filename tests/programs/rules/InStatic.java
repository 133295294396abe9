// SPDX-License-Identifier: Apache-2.0
// InStatic.java: destroyed Screens kept three ways a registry keeps things: in a static
// Object[] (ROOTS: slots 1, 3, 5), in a static ArrayList (CACHE: two), and by neither (one,
// reached from a static field of its own). Rules test `this in static Holder#ROOTS`; a label
// prints the char field, the Character, a char[] and a UTF-8 byte[] as characters.
// Usage: java InStatic OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;

public class InStatic {
    static final class Screen {
        final String title;
        boolean destroyed = true;
        char grade = '\u00e9';
        Character mark = 'Z';
        char[] sign = {'\u00e9', 't', '\u00e9', '\ud83d', '\ude00', '\n', '\0', 'z'};
        byte[] utf = "h\u00e9llo".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String two = "a\nb";

        Screen(String title) {
            this.title = title;
        }
    }

    static final class Holder {
        static final Object[] ROOTS = new Object[8];
        static final ArrayList<Screen> CACHE = new ArrayList<>();
        static Screen single;
    }

    public static void main(String[] args) throws Exception {
        for (int i = 1; i < 6; i += 2)
            Holder.ROOTS[i] = new Screen("root" + i);
        Holder.CACHE.add(new Screen("cache0"));
        Holder.CACHE.add(new Screen("cache1"));
        Holder.single = new Screen("single");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
