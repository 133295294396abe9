// SPDX-License-Identifier: Apache-2.0
// A stand-in for Jetty's servlet output stream (same name): closed at the end of each
// response, kept by its connection's channel for the next request.
package org.eclipse.jetty.server;

public class HttpOutput extends java.io.OutputStream {
    @Override public void write(int b) { }
}
