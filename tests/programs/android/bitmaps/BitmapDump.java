// SPDX-License-Identifier: Apache-2.0
// BitmapDump.java: a HotSpot heap dump with Android bitmaps of both kinds, for
// tests/e2e/bitmaps_png.sh. Expected: two RGB_565 bitmaps 80x40 with identical mBuffer
// (6,400 bytes); two native bitmaps 64x48 whose dumpData copies are the same PNG (format 1);
// one native 1200x1000 bitmap without pixels (a KOOM large bitmap) whose NativeAllocationRegistry
// size is 4,800,000; a unique 64x48 native bitmap with another PNG.
import android.graphics.Bitmap;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import javax.imageio.ImageIO;
import libcore.util.NativeAllocationRegistry;

public class BitmapDump {
    static Bitmap[] BITMAPS;
    static Runnable[] THUNKS;

    static byte[] png(int w, int h, int seed) throws Exception {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                img.setRGB(x, y, 0xff000000 | (x * 4 << 16) | (y * 5 << 8) | (seed * 60));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(img, "png", out);
        return out.toByteArray();
    }

    static byte[] rgb565(int w, int h) {
        byte[] b = new byte[w * h * 2];
        for (int i = 0; i < w * h; i++) {
            int x = i % w, y = i / w;
            int v = (x & 0x1f) << 11 | (y & 0x3f) << 5 | ((x + y) & 0x1f);
            b[2 * i] = (byte) v;          // little-endian 16-bit pixels
            b[2 * i + 1] = (byte) (v >> 8);
        }
        return b;
    }

    public static void main(String[] args) throws Exception {
        setUp();
        HotSpotDiagnosticMXBean mx =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        mx.dumpHeap(args[0], true);
    }

    static void setUp() throws Exception {
        Bitmap large = new Bitmap(null, 0x7000L, 1200, 1000);
        NativeAllocationRegistry reg = new NativeAllocationRegistry(
            BitmapDump.class.getClassLoader(), 0x10L, 4800000L);
        THUNKS = new Runnable[] {reg.registerNativeAllocation(large, 0x7000L)};
        BITMAPS = new Bitmap[] {
            new Bitmap(rgb565(80, 40), 0L, 80, 40),
            new Bitmap(rgb565(80, 40), 0L, 80, 40),
            new Bitmap(null, 0x5000L, 64, 48),
            new Bitmap(null, 0x5100L, 64, 48),
            new Bitmap(null, 0x5200L, 64, 48),
            large,
        };
        Bitmap.dump(0x5000L, png(64, 48, 1), 1);
        Bitmap.dump(0x5100L, png(64, 48, 1), 1);
        Bitmap.dump(0x5200L, png(64, 48, 2), 1);
    }
}
