// SPDX-License-Identifier: Apache-2.0
// ViewGroup.java: a View that holds others, as android.view.ViewGroup.
package android.view;

public class ViewGroup extends View {
    public View[] mChildren = new View[4];

    public ViewGroup(Object context) {
        super(context);
    }
}
