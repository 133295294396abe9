// SPDX-License-Identifier: Apache-2.0
// ViewRootImpl.java: the parent of a window's root view, not a View itself.
package android.view;

public class ViewRootImpl {
    public View mView;
    public Object mContext;

    public ViewRootImpl(View view, Object context) {
        mView = view;
        mContext = context;
    }
}
