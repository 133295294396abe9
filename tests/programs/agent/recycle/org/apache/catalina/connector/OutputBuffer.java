// SPDX-License-Identifier: Apache-2.0
// A stand-in for Tomcat's response buffer (same name): a Writer the server closes at the end
// of each request and keeps, with its processor, for the next one.
package org.apache.catalina.connector;

public class OutputBuffer extends java.io.Writer {
    final char[] buf = new char[8192];

    @Override public void write(char[] c, int off, int len) { }
    @Override public void flush() { }
    @Override public void close() { }
}
