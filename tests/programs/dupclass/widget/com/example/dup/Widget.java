// SPDX-License-Identifier: Apache-2.0
// Widget.java: the class DupClassDump loads twice, through two class loaders that do not
// delegate to each other, so the heap holds two distinct classes of the same name.
package com.example.dup;

public class Widget {
    public int size;
    public Object next;

    public Widget(int size) {
        this.size = size;
    }
}
