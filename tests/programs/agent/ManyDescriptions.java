// SPDX-License-Identifier: Apache-2.0
// ManyDescriptions: 40 objects watched with 40 distinct short descriptions ("order 0
// cancelled" ...), each numbered by AppWatcher (its table of numbered descriptions grows as
// they come), all kept in a static list: the report must give each leaked object its own
// description. Sleeps the given milliseconds for the agent to dump and analyse.
// usage: java -agentpath:...=threshold=40,rules=none -cp leakray-watcher.jar:. \
//     agent.ManyDescriptions MS
package agent;

import java.util.ArrayList;
import java.util.List;
import leakray.AppWatcher;

public class ManyDescriptions {
    static final class Order {
        final int id;

        Order(int id) {
            this.id = id;
        }
    }

    static final List<Order> CANCELLED = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 40; i++) {
            Order o = new Order(i);
            CANCELLED.add(o);
            AppWatcher.expectWeaklyReachable(o, "order " + i + " cancelled");
        }
        Thread.sleep(Long.parseLong(args[0]));
    }
}
