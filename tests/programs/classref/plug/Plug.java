// Plug: a class a test loads through its own class loader (tests/programs/classref).
package plug;

public class Plug {
    public static final byte[] TABLE = new byte[4096];
}
