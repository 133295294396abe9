// SPDX-License-Identifier: Apache-2.0
// NativeDump.java: writes a HotSpot heap dump with Android-style native allocations, for
// tests/e2e/android_native.sh. Expected native sizes: Owner "a" 123,456 x 2 = 246,912 (two
// registrations add up), Owner "b" 7,000; the Cleaner whose thunk is a plain Runnable adds
// nothing. Holder "h" holds "a" alone, so its retained size includes a's native bytes.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import libcore.util.NativeAllocationRegistry;

public class NativeDump {
    static final class Owner {
        final String name;
        Owner(String name) { this.name = name; }
    }

    static final class Holder {
        Owner owner;
        Holder(Owner o) { owner = o; }
    }

    static final class Plain {
        final int x = 1;
    }

    static Holder h;
    static Owner b;
    static Plain plain;
    static Runnable[] thunks;

    public static void main(String[] args) throws Exception {
        setUp(); // in its own frame, so no local of main keeps an owner rooted
        HotSpotDiagnosticMXBean mx =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        mx.dumpHeap(args[0], true);
    }

    static void setUp() {
        NativeAllocationRegistry big = new NativeAllocationRegistry(
            NativeDump.class.getClassLoader(), 0x1000L, 123456L);
        NativeAllocationRegistry small = new NativeAllocationRegistry(
            NativeDump.class.getClassLoader(), 0x2000L, 7000L);
        Owner a = new Owner("a");
        h = new Holder(a);
        b = new Owner("b");
        plain = new Plain();
        thunks = new Runnable[] {
            big.registerNativeAllocation(a, 0xA1L),
            big.registerNativeAllocation(a, 0xA2L),
            small.registerNativeAllocation(b, 0xB1L),
        };
        jdk.internal.ref.Cleaner.create(plain, () -> { });
    }
}
