// SPDX-License-Identifier: Apache-2.0
// ContextThemeWrapper.java: the context AppCompat, dialogs and toolbars inflate views with.
package android.view;

public class ContextThemeWrapper extends android.content.ContextWrapper {
    public ContextThemeWrapper(Object base) {
        super(base);
    }
}
