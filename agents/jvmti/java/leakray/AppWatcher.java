// SPDX-License-Identifier: Apache-2.0
// leakray.AppWatcher: the explicit watching API of the leakray JVM agent. Call
// expectWeaklyReachable(obj, "why it should die") when obj reaches the end of its life
// (closed, disposed, removed); if it is still reachable 5 seconds later (after a GC), the agent
// counts it as retained and dumps and analyses the heap once enough are. Without the agent
// loaded every call returns at once: the jar may ship with an application permanently.
package leakray;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import leakcanary.KeyedWeakReference;

public final class AppWatcher {
    /** Set by the agent once it is ready; never set without it. */
    private static volatile boolean installed;
    private static final AtomicLong KEYS = new AtomicLong();
    /** Watch rules as "Class#method()", set by the agent; indexed by returned()'s rule. */
    private static volatile String[] rules = new String[0];

    // ---- rule-watched classes loaded while the agent runs: stamps ----
    //
    // An application class that declares a watched method gets, when it is loaded, an int
    // field of its own, and each return of the method stores stamp(slot) there: the
    // agent's epoch (advanced by its thread every 100 ms) at the return. Nothing else: no
    // reference to the object is taken, so an object that dies at once costs one store.
    // ACTIVE[slot] tells the agent that a class returned since it last looked; only then
    // does it look for objects whose stamp is older than the delay (a GC and a heap walk,
    // LeakCanary's timings unchanged), and only those it watches.

    /** Stamped classes the agent may number: the length of ACTIVE. */
    private static final int STAMP_SLOTS = 4096;

    /** The agent's epoch, 0 until it runs; the stamp an object's field receives. */
    private static volatile int epoch;

    /** Per stamped class: 1 once its watched method returned since the agent last looked. */
    private static final byte[] ACTIVE = new byte[STAMP_SLOTS];

    /**
     * Called by the rewritten methods of a stamped class just before they return: returns
     * the value stored in the object's stamp field. The epoch is read first (a volatile read):
     * the agent clears ACTIVE, then advances the epoch, so a stamp is never older than the
     * activity it reports; and the read is never hoisted out of the caller's loop.
     */
    public static int stamp(int slot) {
        int e = epoch;
        if (ACTIVE[slot] == 0) {
            ACTIVE[slot] = 1;
        }
        return e;
    }

    // ---- rule-watched objects ----
    //
    // A rewritten close() calls returned() on every return, so it must cost about what the
    // store of one reference costs: no JNI transition, no lock, no clock read, no allocation.
    // returned() claims a slot of the current Batch with one atomic increment, stores the
    // object and its rule in plain arrays, and counts the slot filled with a second atomic
    // increment, which publishes both stores to the thread that hands the batch over (no
    // VarHandle: the JIT compiles the whole path in a few nodes). The batch is handed to the
    // agent in one native call (flush0) when full, or by the agent's thread every 100 ms
    // (seal), stamped with the clock at hand-over: never before any of its objects returned,
    // so none is checked early. The agent keeps each object through a JNI weak reference,
    // which the GC clears like any other (a Java WeakReference promoted to the old generation
    // would keep its young referent alive until an old collection). The batch holds its
    // objects strongly only until the hand-over, which changes nothing for a check 5 seconds
    // later.

    /** Objects per batch: one native call per this many returns at full speed. */
    private static final int BATCH = 512;

    private static final class Batch {
        final Object[] objs = new Object[BATCH];
        final int[] rules = new int[BATCH];
        final AtomicInteger claimed = new AtomicInteger();
        final AtomicInteger filled = new AtomicInteger();
    }

    // ---- rule-watched classes hooked when loaded: call slots ----
    //
    // A class that cannot take a stamp field (the boot loader's, an interface, past the stamp
    // slots) but is loaded while the agent runs gets the call hook when it is loaded, as its
    // bytes pass by, instead of a retransformation later (a VM operation that visits every
    // loaded class). Whether a rule's type is among its supertypes is only known once it is
    // prepared, so its hook passes CALL_RULE + its call slot, and CALLED[slot] (the rule + 1,
    // set by the agent then) says whether the return is watched at all.

    /** Call-hooked methods the agent may number: the length of CALLED. */
    private static final int CALL_SLOTS = 8192;
    /** Hook arguments from here on are call slots (watch rules are 0..127). */
    private static final int CALL_RULE = 128;
    /**
     * Per call slot: its rule + 1 once the class is known to be a rule's subtype, else 0
     * (read as unsigned: rules are 0..127). Bytes, and descs below grows as it fills: what
     * the agent allocates before the JVM's first collection is copied by it, and G1 sizes
     * its young generation from what that copy cost. The 40 KB these two arrays took as int
     * and a full table made a 0.2 s program's next eden 48 MB instead of 60 MB, and so its
     * later allocations touch fresh pages.
     */
    private static final byte[] CALLED = new byte[CALL_SLOTS];

    private static final Object LOCK = new Object();
    private static volatile Batch current = new Batch();

    /** Whether the leakray agent is loaded and watching. */
    public static boolean isInstalled() {
        return installed;
    }

    // ---- explicitly watched objects ----
    //
    // An object watched with a description seen before goes into the same batch as the
    // rule-watched ones, with its description's number: no reference object, no key, no
    // native call per object. The agent holds it through a JNI weak reference, and builds its
    // KeyedWeakReference (key, description, watch time) only if it is found retained, so the
    // dump is marked as before. Past DESCRIPTIONS distinct descriptions (descriptions built
    // per object), objects are watched through their own KeyedWeakReference at once. A
    // numbered description is kept for good: so only short ones are, DESC_CHARS in all (a
    // description carrying a request or a stack trace would otherwise be held forever,
    // megabytes of them); longer ones go with their object's own reference.

    /** Distinct descriptions numbered; the number is the batch's rule minus API_RULE. */
    private static final int DESCRIPTIONS = 4096;
    /** Characters of one numbered description at most, and of all of them. */
    private static final int DESC_MAX = 256;
    private static final int DESC_CHARS = 64 * 1024;
    /** Characters of the descriptions numbered so far (guarded by DESC_IDS). */
    private static int descChars;
    /** Rules of explicitly watched objects start here (watch rules are 0..127). */
    private static final int API_RULE = 1 << 16;
    private static final ConcurrentHashMap<String, Integer> DESC_IDS =
            new ConcurrentHashMap<String, Integer>();
    /** Numbered descriptions by number, grown as they come (guarded by DESC_IDS; see CALLED). */
    private static volatile String[] descs = new String[0];

    /** A description and its number; final fields, so any thread may read one it sees. */
    private static final class Numbered {
        final String d;
        final int id;

        Numbered(String d, int id) {
            this.d = d;
            this.id = id;
        }
    }

    /** The description numbered last: a program watches with a few literals, over and over. */
    private static volatile Numbered last = new Numbered(null, -1);

    /** The number of description d, or -1 when all are taken. */
    private static int number(String d) {
        Numbered l = last;
        if (l.d == d) {
            return l.id;
        }
        return numberSlow(d);
    }

    private static int numberSlow(String d) {
        Integer id = DESC_IDS.get(d);
        if (id == null) {
            synchronized (DESC_IDS) {
                id = DESC_IDS.get(d);
                if (id == null) {
                    int n = DESC_IDS.size();
                    if (n >= DESCRIPTIONS || d.length() > DESC_MAX
                            || descChars + d.length() > DESC_CHARS) {
                        return -1;
                    }
                    descChars += d.length();
                    String[] ds = descs;
                    if (n >= ds.length) {
                        descs = ds = java.util.Arrays.copyOf(ds, Math.max(16, 2 * ds.length));
                    }
                    ds[n] = d; // published to other threads by the map's put
                    DESC_IDS.put(d, n);
                    id = n;
                }
            }
        }
        last = new Numbered(d, id);
        return id;
    }

    /** Watches obj: it is expected to become weakly reachable within the agent's delay. */
    public static void expectWeaklyReachable(Object obj, String description) {
        if (!installed) {
            if (obj != null) {
                notInstalled();
            }
            return;
        }
        if (obj == null) {
            return;
        }
        int id = number(description == null ? "" : description);
        if (id >= 0) {
            add(obj, API_RULE + id);
            return;
        }
        watchNow(obj, description);
    }

    /** Calls of the API while not installed (counted loosely: a lost count changes nothing). */
    private static int idleCalls;
    private static volatile boolean strayTold;

    /**
     * Without the agent a call returns at once. But a copy of this class that an
     * application's own loader defined (the jar in a web application's WEB-INF/lib, which a
     * container loads child-first) is never the agent's, which the boot loader holds: its
     * watches would go nowhere without a word. Told once on stderr; looked for at the 1st,
     * 2nd, 4th, 8th... call only, so a program without the agent pays a counter.
     */
    private static void notInstalled() {
        int n = ++idleCalls;
        if ((n & (n - 1)) != 0 || strayTold) {
            return;
        }
        try {
            Class<?> agents = Class.forName("leakray.AppWatcher", false, null);
            if (agents != AppWatcher.class
                    && Boolean.TRUE.equals(agents.getMethod("isInstalled").invoke(null))) {
                strayTold = true;
                System.err.println("leakray: the copy of leakray.AppWatcher loaded by "
                        + AppWatcher.class.getClassLoader() + " is not the agent's: its watches"
                        + " are ignored; take leakray-watcher.jar out of the application (the"
                        + " agent brings its own) or load it from the container's class path");
            }
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            // no copy in the boot loader: the agent is not loaded, nothing to tell
        }
    }

    /** Watches obj through its own KeyedWeakReference, at once. */
    static void watchNow(Object obj, String description) {
        watchAt(obj, description, System.nanoTime() / 1_000_000L);
    }

    /**
     * Watches obj through its own KeyedWeakReference, watched at watchUptimeMillis (the
     * agent's thread, for a thread that ended since its last tick).
     */
    static void watchAt(Object obj, String description, long watchUptimeMillis) {
        if (!installed || obj == null) {
            return;
        }
        String key = "lr-" + Long.toHexString(KEYS.incrementAndGet());
        KeyedWeakReference ref = new KeyedWeakReference(obj, key,
                description == null ? "" : description, watchUptimeMillis, null);
        watch0(ref, watchUptimeMillis);
    }

    /**
     * Called by the agent's rewritten methods just before they return (watch rules such as
     * java.io.Closeable#close): watches self. rule is the watch rule, or CALL_RULE + the
     * call slot of a class hooked when it was loaded.
     */
    public static void returned(Object self, int rule) {
        if (!installed || self == null) {
            return;
        }
        if (rule >= CALL_RULE) {
            int slot = rule - CALL_RULE;
            rule = slot < CALL_SLOTS ? (CALLED[slot] & 0xff) - 1 : -1;
            if (rule < 0) {
                return;
            }
        }
        add(self, rule);
    }

    /**
     * Puts self into the current batch (two atomic increments and two plain stores). An
     * object equal to the one in the slot before (an override's super.close() returning just
     * before the override itself, on the same thread) leaves its slot empty: watched once.
     */
    private static void add(Object self, int rule) {
        Batch b = current;
        int i = b.claimed.getAndIncrement();
        if (i < BATCH) {
            if (i == 0 || b.objs[i - 1] != self) {
                b.objs[i] = self;
                b.rules[i] = rule;
            }
            b.filled.incrementAndGet();
        } else {
            overflow(self, rule);
        }
    }

    /** The current batch is full: hand it over (whoever gets the lock first) and retry. */
    private static void overflow(Object self, int rule) {
        for (;;) {
            Batch b;
            synchronized (LOCK) {
                b = current;
                if (b.claimed.get() >= BATCH) {
                    handOver(System.nanoTime() / 1_000_000L);
                    b = current;
                }
            }
            int i = b.claimed.getAndIncrement();
            if (i < BATCH) {
                if (i == 0 || b.objs[i - 1] != self) {
                    b.objs[i] = self;
                    b.rules[i] = rule;
                }
                b.filled.incrementAndGet();
                return;
            }
        }
    }

    // ---- finalization, bounded ----
    //
    // A check runs finalization between its two GCs, as LeakCanary's GcTrigger does. On the
    // JDK, Runtime.runFinalization forks a thread and waits for it until the finalizer queue
    // is empty: with an application that queues finalizable objects faster than they run
    // (itself a leak), never. The agent's thread waits at most a while, then counts; the
    // thread goes on alone and no second one starts while it runs.

    private static final class Finalization implements Runnable {
        public void run() {
            Runtime.getRuntime().runFinalization();
        }
    }

    private static Thread finalization;

    /** Called by the agent's thread only. */
    static void runFinalization(long maxMillis) throws InterruptedException {
        Thread t = finalization;
        if (t == null || !t.isAlive()) {
            t = new Thread(null, new Finalization(), "leakray finalization", 0);
            t.setDaemon(true);
            finalization = t;
            t.start();
        }
        t.join(maxMillis);
    }

    /** Called by the agent's thread every 100 ms: hands the current batch over. */
    static void seal(long nowMs) {
        synchronized (LOCK) {
            if (current.claimed.get() > 0) {
                handOver(nowMs);
            }
        }
    }

    /**
     * Replaces the current batch and gives its objects to the agent, watched at nowMs. The
     * batch is closed first (its count pushed past BATCH), so a thread that read it as the
     * current one just before claims no slot in it and goes to the new one (overflow). A slot
     * claimed but not yet filled is waited for briefly (its writer is between two
     * instructions); past that wait the batch is dropped rather than read half-written. The
     * agent skips the empty slots (add's duplicates): no loop here, which a short program
     * would run interpreted. Each batch is new, never reused: filled
     * in a few hundred microseconds, it dies young with the objects it held, where a reused
     * one would be promoted and every store of a young object into it would pay the
     * collector's old-to-young card marking. Under LOCK.
     */
    private static void handOver(long nowMs) {
        Batch b = current;
        current = new Batch();
        int n = Math.min(b.claimed.getAndAdd(BATCH), BATCH);
        for (int spin = 0; b.filled.get() < n && spin < 100_000; spin++) {
            Thread.yield();
        }
        if (b.filled.get() < n || n == 0) {
            return; // a writer stalled mid-store
        }
        flush0(b.objs, b.rules, n, nowMs);
    }

    /** "Foo received java.io.Closeable#close() callback", LeakCanary's wording. */
    private static String describe(Object self, int rule) {
        if (rule >= API_RULE) {
            String[] ds = descs;
            String d = rule - API_RULE < ds.length ? ds[rule - API_RULE] : null;
            return d == null ? "" : d;
        }
        String[] rs = rules;
        if (rule < 0 || rule >= rs.length) {
            return "";
        }
        return self.getClass().getName() + " received " + rs[rule] + " callback";
    }

    /**
     * Called by the agent when an object of a batch (rule-watched, or watched with a numbered
     * description) is found retained: its reference.
     */
    static KeyedWeakReference retainedByRule(Object self, int rule, long watchUptimeMillis,
                                             long retainedUptimeMillis) {
        int h = System.identityHashCode(self);
        synchronized (RETAINED) {
            // one object, one retained object: a stream closed twice (its close() hook runs on
            // each call) is not two
            java.util.ArrayList<KeyedWeakReference> same = RETAINED.get(h);
            if (same != null) {
                for (KeyedWeakReference r : same) {
                    if (r.get() == self) {
                        return null;
                    }
                }
            }
            String key = "lr-" + Long.toHexString(KEYS.incrementAndGet());
            KeyedWeakReference ref = new KeyedWeakReference(self, key, describe(self, rule),
                    watchUptimeMillis, null);
            ref.retainedUptimeMillis = retainedUptimeMillis;
            if (same == null) {
                same = new java.util.ArrayList<KeyedWeakReference>(1);
                RETAINED.put(h, same);
            }
            same.add(ref);
            RETAINED_HASH.put(ref, h);
            return ref;
        }
    }

    /** The agent let go of ref (its referent collected, or dumped): no longer retained. */
    static void forget(KeyedWeakReference ref) {
        synchronized (RETAINED) {
            Integer h = RETAINED_HASH.remove(ref);
            if (h == null) {
                return;
            }
            java.util.ArrayList<KeyedWeakReference> same = RETAINED.get(h);
            if (same != null && same.remove(ref) && same.isEmpty()) {
                RETAINED.remove(h);
            }
        }
    }

    /** Retained objects by identity hash, and each reference's hash (guarded by RETAINED). */
    private static final java.util.HashMap<Integer, java.util.ArrayList<KeyedWeakReference>>
            RETAINED = new java.util.HashMap<Integer, java.util.ArrayList<KeyedWeakReference>>();
    private static final java.util.IdentityHashMap<KeyedWeakReference, Integer> RETAINED_HASH =
            new java.util.IdentityHashMap<KeyedWeakReference, Integer>();

    private static native void flush0(Object[] objs, int[] rules, int n, long watchUptimeMillis);

    private static native void watch0(KeyedWeakReference ref, long watchUptimeMillis);
}
