// SPDX-License-Identifier: Apache-2.0
// RuleValues.java: values the rules language compares, where a comparison went wrong. Three
// screens whose routes share their first 255 characters but one ("<255 x>/checkout",
// "<255 x>/home", "short"), and three gauges whose float f is NaN, 0.1 and 1.5 and whose
// double d is 1e300, -0.0 and 2.5, and two contexts whose lifecycle flags are atomics, as a
// Spring context's are (one closed, one running). Plain JVM: no android.os.Build, so no build
// fact.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.rules.RuleValues OUT.hprof
package com.example.rules;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public class RuleValues {
    public static final class Screen {
        final String route;

        Screen(String route) {
            this.route = route;
        }
    }

    public static final class Gauge {
        final float f;
        final double d;

        Gauge(float f, double d) {
            this.f = f;
            this.d = d;
        }
    }

    public static final class Context {
        final AtomicBoolean closed = new AtomicBoolean();
        final AtomicInteger refs = new AtomicInteger();
        final AtomicLong closedAt = new AtomicLong();

        Context close(int refs, long at) {
            closed.set(true);
            this.refs.set(refs);
            closedAt.set(at);
            return this;
        }
    }

    static final List<Object> ALL = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        String p = "x".repeat(255);
        ALL.add(new Screen(p + "/checkout"));
        ALL.add(new Screen(p + "/home"));
        ALL.add(new Screen("short"));
        ALL.add(new Gauge(Float.NaN, 1e300));
        ALL.add(new Gauge(0.1f, -0.0));
        ALL.add(new Gauge(1.5f, 2.5));
        ALL.add(new Context().close(3, 1_700_000_000_000L));
        ALL.add(new Context());
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
            .dumpHeap(args[0], true);
    }
}
