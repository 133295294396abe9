// SPDX-License-Identifier: Apache-2.0
// Loaded.java: a class TwoLoaders loads twice, through two class loaders of its own.
public class Loaded {
    public final int n;

    public Loaded(int n) {
        this.n = n;
    }
}
