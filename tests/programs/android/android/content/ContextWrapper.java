// SPDX-License-Identifier: Apache-2.0
// ContextWrapper.java: the field of android.content.ContextWrapper that android.rules reads.
package android.content;

public class ContextWrapper {
    public Object mBase;

    public ContextWrapper(Object base) {
        mBase = base;
    }
}
