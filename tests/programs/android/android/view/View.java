// SPDX-License-Identifier: Apache-2.0
// View.java: the fields of android.view.View that android.rules reads.
package android.view;

public class View {
    public Object mContext;
    public Object mParent;
    public Object mAttachInfo;
    public int mWindowAttachCount;

    public View(Object context) {
        mContext = context;
    }
}
