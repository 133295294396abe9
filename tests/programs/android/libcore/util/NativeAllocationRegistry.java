// SPDX-License-Identifier: Apache-2.0
// NativeAllocationRegistry.java: a stand-in for Android's libcore.util.NativeAllocationRegistry
// with the field layout heap analysers read (size as a long; CleanerThunk an inner class, so
// its outer registry is the synthetic field this$0). It registers a JDK Cleaner
// (jdk.internal.ref.Cleaner, the old sun.misc.Cleaner) per allocation, as Android does.
package libcore.util;

public class NativeAllocationRegistry {
    private final ClassLoader classLoader;
    private final long freeFunction;
    private final long size;

    public NativeAllocationRegistry(ClassLoader classLoader, long freeFunction, long size) {
        this.classLoader = classLoader;
        this.freeFunction = freeFunction;
        this.size = size;
    }

    public Runnable registerNativeAllocation(Object referent, long nativePtr) {
        CleanerThunk thunk = new CleanerThunk(nativePtr);
        jdk.internal.ref.Cleaner.create(referent, thunk);
        return thunk;
    }

    private class CleanerThunk implements Runnable {
        private final long nativePtr;

        CleanerThunk(long nativePtr) {
            this.nativePtr = nativePtr;
        }

        public void run() {
            // Native memory would be freed here with freeFunction.
        }
    }
}
