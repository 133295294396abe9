// SPDX-License-Identifier: Apache-2.0
// ChildFirst.java: a container's web application loader in small: it defines the classes of
// its URLs itself before asking its parent (as Jetty's and Tomcat's do), so a
// leakray-watcher.jar among them gives the application its own leakray.AppWatcher. Runs
// web.Web once. Usage: java ChildFirst WEB_CLASSES_DIR WATCHER_JAR
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;

public class ChildFirst extends URLClassLoader {
    ChildFirst(URL[] urls) {
        super("webapp", urls, ChildFirst.class.getClassLoader());
    }

    @Override protected Class<?> loadClass(String name, boolean resolve)
            throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null && !name.startsWith("java.")) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException e) {
                    c = null;
                }
            }
            if (c == null)
                c = super.loadClass(name, false);
            if (resolve)
                resolveClass(c);
            return c;
        }
    }

    public static void main(String[] args) throws Exception {
        URL[] urls = {new File(args[0]).toURI().toURL(), new File(args[1]).toURI().toURL()};
        try (ChildFirst l = new ChildFirst(urls)) {
            ((Runnable) l.loadClass("web.Web").getDeclaredConstructor().newInstance()).run();
        }
    }
}
