// SPDX-License-Identifier: Apache-2.0
// CollapseDump.java: a Flutter-like component chain for `leakray path --collapse` and
// `leakray convert` tests. One static (CollapseDump.ROOT) holds a 300-node chain of
// element / widget / state / renderObject objects whose classes are named like Flutter's
// (Text, Padding, HomePageState, RenderParagraph: the category comes from a superclass):
//   150 elements (an ArrayList + its Object[] sit between element 100 and 101),
//   a HashMap (HashMap, HashMap$Node[], HashMap$Node) between the last element and the
//   first widget, 80 widgets, 20 states, 50 render objects, then the LeakedController.
// Also: a WeakOnly object reachable only through a WeakReference (convert must drop it and
// write the referent edge as weak). Writes the dump with HotSpotDiagnosticMXBean, live=false
// so the weakly reachable object is still in it.
// usage: java CollapseDump OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;

abstract class Element { Object next; }
abstract class ComponentElement extends Element {}
class StatelessElement extends ComponentElement {}
class StatefulElement extends ComponentElement {}

abstract class Widget { Object next; }
abstract class StatelessWidget extends Widget {}
class Text extends StatelessWidget {}
class Padding extends Widget {}

abstract class State { Object next; }
class HomePageState extends State {}

abstract class RenderObject { Object next; }
class RenderBox extends RenderObject {}
class RenderParagraph extends RenderBox {}

class LeakedController { long[] buffer = new long[16]; }
class WeakOnly { int[] data = new int[64]; }

public class CollapseDump {
    static Object ROOT;
    static WeakReference<Object> WEAK;

    public static void main(String[] args) throws Exception {
        Object[] chain = new Object[300];
        int k = 0;
        for (int i = 0; i < 150; i++)
            chain[k++] = (i % 2 == 0) ? new StatelessElement() : new StatefulElement();
        for (int i = 0; i < 80; i++)
            chain[k++] = (i % 2 == 0) ? new Text() : new Padding();
        for (int i = 0; i < 20; i++)
            chain[k++] = new HomePageState();
        for (int i = 0; i < 50; i++)
            chain[k++] = (i % 2 == 0) ? new RenderParagraph() : new RenderBox();
        for (int i = 0; i + 1 < 300; i++) {
            Object nx = chain[i + 1];
            if (i == 99) {
                ArrayList<Object> list = new ArrayList<>(1);
                list.add(nx);
                nx = list;
            } else if (i == 149) {
                HashMap<String, Object> map = new HashMap<>(2);
                map.put("child", nx);
                nx = map;
            }
            link(chain[i], nx);
        }
        link(chain[299], new LeakedController());
        ROOT = chain[0];
        chain = null;
        WEAK = new WeakReference<>(new WeakOnly());

        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], false);
    }

    static void link(Object a, Object b) {
        if (a instanceof Element) ((Element) a).next = b;
        else if (a instanceof Widget) ((Widget) a).next = b;
        else if (a instanceof State) ((State) a).next = b;
        else ((RenderObject) a).next = b;
    }
}
