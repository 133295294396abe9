// SPDX-License-Identifier: Apache-2.0
// LambdaLeaks: leaks whose traces pass classes the JVM names anew in every run, for the
// stable signature (tests/e2e/stable_signatures.sh).
// usage: java com.example.lambdas.LambdaLeaks OUT.hprof EXTRA
// Three pages are closed and watched the way LeakCanary watches them; each stays reachable
// from a static listener list through a different holder: a lambda capturing it, a dynamic
// proxy whose handler captures it, and a named listener class. Two sessions are closed too,
// held the first two ways by other lambdas of the same class, in the same lists: two more
// leaks, whose traces differ from the pages' only in the lambda classes' names and in what
// leaks. And one lambda site holds two connections of two subclasses, one leak: with EXTRA 0
// the plain one is registered first, with 1 the secure one. With EXTRA 1 the program
// first spins other lambda and proxy classes, so the JVM numbers the leaking lambda's class
// and the proxy's class differently from a run with EXTRA 0 (and, run with -Xshare:off, the
// lambda's address moves too): the same leaks, under other class names.
package com.example.lambdas;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import leakcanary.KeyedWeakReference;

public class LambdaLeaks {
    interface Listener { void onEvent(String e); }

    interface Other { int value(); }

    static final class Page {
        final String name;
        final byte[] pixels = new byte[32 * 1024];

        Page(String name) { this.name = name; }

        void onEvent(String e) { pixels[0] = (byte) e.length(); }
    }

    static final class Session {
        final byte[] state = new byte[16 * 1024];

        void onEvent(String e) { state[1] = (byte) e.length(); }
    }

    abstract static class Conn {
        final byte[] buf = new byte[8 * 1024];

        void onEvent(String e) { buf[2] = (byte) e.length(); }
    }

    static final class PlainConn extends Conn {}

    static final class SecureConn extends Conn {}

    static void register(Conn c) {
        LAMBDAS.add(e -> c.onEvent(e));
        watch(c, "connection closed");
    }

    /** A named listener: its class name is the same in every run. */
    static final class PageListener implements Listener {
        final Page page;

        PageListener(Page page) { this.page = page; }

        public void onEvent(String e) { page.onEvent(e); }
    }

    static final List<Listener> LAMBDAS = new ArrayList<>();
    static final List<Listener> PROXIES = new ArrayList<>();
    static final List<Listener> NAMED = new ArrayList<>();
    static final List<Object> SPUN = new ArrayList<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final long START = System.nanoTime();

    static long uptime() { return (System.nanoTime() - START) / 1_000_000L; }

    static void watch(Object o, String why) {
        WATCHED.add(new KeyedWeakReference(o, UUID.randomUUID().toString(), why, uptime(), null));
    }

    /** Other lambda and proxy classes, made before the leaking ones. */
    static void spin() {
        Supplier<String> a = () -> "a";
        Supplier<String> b = () -> "b";
        Runnable c = () -> { };
        SPUN.add(a);
        SPUN.add(b);
        SPUN.add(c);
        InvocationHandler h = (p, m, args) -> 0;
        ClassLoader l = Other.class.getClassLoader();
        SPUN.add(Proxy.newProxyInstance(l, new Class<?>[] {Other.class}, h));
        SPUN.add(Proxy.newProxyInstance(l, new Class<?>[] {Runnable.class}, h));
    }

    static void open() {
        Page lambda = new Page("lambda");
        LAMBDAS.add(e -> lambda.onEvent(e));
        watch(lambda, "page closed (lambda)");
        Page proxied = new Page("proxy");
        InvocationHandler h = (p, m, args) -> {
            proxied.onEvent(String.valueOf(args[0]));
            return null;
        };
        PROXIES.add((Listener) Proxy.newProxyInstance(Listener.class.getClassLoader(),
                                                      new Class<?>[] {Listener.class}, h));
        watch(proxied, "page closed (proxy)");
        Session session = new Session();
        LAMBDAS.add(e -> session.onEvent(e));
        watch(session, "session closed (lambda)");
        Session proxiedSession = new Session();
        InvocationHandler hs = (p, m, args) -> {
            proxiedSession.onEvent(String.valueOf(args[0]));
            return null;
        };
        PROXIES.add((Listener) Proxy.newProxyInstance(Listener.class.getClassLoader(),
                                                      new Class<?>[] {Listener.class}, hs));
        watch(proxiedSession, "session closed (proxy)");
        Page named = new Page("named");
        NAMED.add(new PageListener(named));
        watch(named, "page closed (named)");
        watch(new Page("freed"), "page closed (freed)");
    }

    public static void main(String[] args) throws Exception {
        boolean extra = Integer.parseInt(args[1]) != 0;
        if (extra)
            spin();
        open();
        for (int i = 0; i < 2; i++) {
            register(extra ? new SecureConn() : new PlainConn());
            register(extra ? new PlainConn() : new SecureConn());
        }
        System.gc();
        Thread.sleep(100);
        System.gc();
        for (KeyedWeakReference r : WATCHED)
            if (r.get() != null)
                r.retainedUptimeMillis = uptime();
        KeyedWeakReference.heapDumpUptimeMillis = uptime();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
