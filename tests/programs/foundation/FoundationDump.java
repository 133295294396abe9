// SPDX-License-Identifier: Apache-2.0
// FoundationDump: writes a HotSpot heap dump whose contents the end-to-end tests know exactly.
// usage: java FoundationDump OUT.hprof
//   - exactly FOO_COUNT instances of FoundationDump$Foo, held by the static array FOOS, with
//     Foo.index == position in the array;
//   - one FieldValues instance (static VALUES) holding one field of every primitive type with
//     a distinctive value, three Strings (Latin-1, UTF-16, empty), a reference to FOOS[7] and a
//     null; a second FieldValues (VALUES.next) holding different values;
//   - one primitive array of every type (static PRIMS) with known lengths and contents;
//   - statics of every primitive type on LrStatics;
//   - a parked thread named "lr-holder" whose only reference to its LrLocalMarker is a local
//     (MARKER_REF, a WeakReference, lets the tests find the marker).
// The tests (tests/e2e/foundation_*.sh) assert these numbers through the leakray CLI.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

class LrStatics {
    static boolean S_BOOL = true;
    static char S_CHAR = 'Q';
    static float S_FLOAT = 2.5f;
    static double S_DOUBLE = -1234.0625;
    static byte S_BYTE = -128;
    static short S_SHORT = 32767;
    static int S_INT = -2147483647;
    static long S_LONG = 9007199254740993L;
    static String S_STRING = "static string";
    static Object S_NULL = null;
}

class LrLocalMarker {
    long stamp = 0x5eed5eedL;
}

class LrPrimArrays {
    boolean[] z = new boolean[11];
    char[] c = new char[12];
    float[] f = new float[13];
    double[] d = new double[14];
    byte[] b = new byte[1001];
    short[] s = new short[15];
    int[] i = new int[777];
    long[] j = new long[16];
    Object[] o = new Object[17];
    FoundationDump.Foo[][] nested = new FoundationDump.Foo[3][2];

    LrPrimArrays() {
        for (int k = 0; k < z.length; k++) z[k] = (k % 3) == 0;
        for (int k = 0; k < c.length; k++) c[k] = (char) ('a' + k);
        for (int k = 0; k < f.length; k++) f[k] = k + 0.5f;
        for (int k = 0; k < d.length; k++) d[k] = -k * 0.25;
        for (int k = 0; k < b.length; k++) b[k] = (byte) k;
        for (int k = 0; k < s.length; k++) s[k] = (short) (-k * 1000);
        for (int k = 0; k < i.length; k++) i[k] = k * k;
        for (int k = 0; k < j.length; k++) j[k] = 1L << (k * 4);
        o[0] = "first";
        o[16] = c;
    }
}

public class FoundationDump {
    static final int FOO_COUNT = 12345;

    static final class Foo {
        final int index;
        Foo(int index) { this.index = index; }
    }

    static final class FieldValues {
        boolean aBool;
        char aChar;
        float aFloat;
        double aDouble;
        byte aByte;
        short aShort;
        int anInt;
        long aLong;
        String latin;
        String utf16;
        String empty;
        Object ref;
        Object nothing;
        FieldValues next;
    }

    // Subclass with a shadowing field name: both `anInt`s must be kept apart.
    static final class Shadow extends Base {
        int anInt = 22;
    }

    static class Base {
        int anInt = 11;
        long baseOnly = -77L;
    }

    static Foo[] FOOS = new Foo[FOO_COUNT];
    static FieldValues VALUES;
    static LrPrimArrays PRIMS;
    static Shadow SHADOW = new Shadow();
    // Lets the tests find the holder thread's local without keeping it alive.
    static java.lang.ref.WeakReference<LrLocalMarker> MARKER_REF;

    public static void main(String[] args) throws Exception {
        for (int k = 0; k < FOO_COUNT; k++) FOOS[k] = new Foo(k);
        FieldValues v = new FieldValues();
        v.aBool = true;
        v.aChar = '\u00e9';
        v.aFloat = 1.25f;
        v.aDouble = 3.141592653589793;
        v.aByte = -5;
        v.aShort = -30000;
        v.anInt = 123456789;
        v.aLong = -81985529216486896L; // 0xFEDCBA9876543210
        v.latin = "leakray latin-1 caf\u00e9";
        v.utf16 = "snow \u2603 man";
        v.empty = "";
        v.ref = FOOS[7];
        v.nothing = null;
        FieldValues w = new FieldValues();
        w.anInt = -1;
        w.aLong = Long.MAX_VALUE;
        w.aChar = 'x';
        w.latin = "second";
        v.next = w;
        VALUES = v;
        PRIMS = new LrPrimArrays();
        String touch = LrStatics.S_STRING; // initialise LrStatics
        if (touch.isEmpty()) throw new AssertionError();

        CountDownLatch ready = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            LrLocalMarker marker = new LrLocalMarker(); // reachable only from this frame
            MARKER_REF = new java.lang.ref.WeakReference<>(marker);
            ready.countDown();
            while (true) {
                LockSupport.park();
                if (marker.stamp == 0) break; // keeps `marker` live in the frame
            }
        }, "lr-holder");
        holder.setDaemon(true);
        holder.start();
        ready.await();
        Thread.sleep(50); // let the holder reach park()

        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        if (FOOS[FOO_COUNT - 1].index != FOO_COUNT - 1) throw new AssertionError();
    }
}
