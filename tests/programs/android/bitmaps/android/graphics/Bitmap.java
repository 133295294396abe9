// SPDX-License-Identifier: Apache-2.0
// android.graphics.Bitmap with the fields heap analysers read on both sides of Android 8:
// mBuffer (pixels on the Java heap, older releases; null for native bitmaps), mNativePtr,
// mWidth, mHeight, mRecycled, and the static dumpData that `am dumpheap -b png` fills with
// one compressed copy per native bitmap (natives[i] = mNativePtr, buffers[i] = the image).
package android.graphics;

public final class Bitmap {
    public byte[] mBuffer;
    public long mNativePtr;
    public int mWidth;
    public int mHeight;
    public boolean mRecycled;

    private static DumpData dumpData;

    public Bitmap(byte[] buffer, long nativePtr, int width, int height) {
        mBuffer = buffer;
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
    }

    /** Records a compressed copy of a native bitmap, as Bitmap.dumpAll does. */
    public static void dump(long nativePtr, byte[] compressed, int format) {
        if (dumpData == null) dumpData = new DumpData(format, 8);
        dumpData.natives[dumpData.count] = nativePtr;
        dumpData.buffers[dumpData.count++] = compressed;
    }

    private static final class DumpData {
        private int count;
        private final int format;
        private final long[] natives;
        private final byte[][] buffers;
        private final int max;

        DumpData(int format, int max) {
            this.format = format;
            this.max = max;
            natives = new long[max];
            buffers = new byte[max][];
        }
    }
}
