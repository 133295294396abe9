// SPDX-License-Identifier: Apache-2.0
// android.graphics.Bitmap with the pre-8.0 (API < 26) field layout that Matrix's duplicate
// bitmap analysis and HPROF shrinker read: pixels in a Java byte[] mBuffer, plus mWidth,
// mHeight and mRecycled. Compiled beside SpecialDump so HotSpot dumps carry the same class
// name and fields an old Android dump would.
package android.graphics;

public final class Bitmap {
    public byte[] mBuffer;
    public int mWidth;
    public int mHeight;
    public boolean mRecycled;

    public Bitmap(byte[] buffer, int width, int height) {
        mBuffer = buffer;
        mWidth = width;
        mHeight = height;
    }
}
