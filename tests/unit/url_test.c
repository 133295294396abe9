/* SPDX-License-Identifier: Apache-2.0 */
/* url_test.c: unit tests of src/base/url.c, a store's address as messages show it: the
 * password of a URI (an unencoded '@' or '%' in it too), of a URI's query, of libpq's
 * key=value form (quoted with an escaped quote, unquoted with a space, a key that merely ends
 * in "password"), an output buffer too small; and libpq's own messages, which quote the
 * piece of a password they could not parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/url.h"

static void shown(const char *url, const char *want)
{
    char out[256];
    url_hide_password(url, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_hide_password(void **state)
{
    (void)state;
    shown("postgres://ci:s3cret@db1/leaks", "postgres://ci:***@db1/leaks");
    shown("postgres://ci:50%off@db1:5432/leaks", "postgres://ci:***@db1:5432/leaks");
    shown("postgres://ci:a@b@db1/leaks", "postgres://ci:***@db1/leaks");
    shown("postgres://ci@db1/leaks", "postgres://ci@db1/leaks");
    shown("postgres:///leaks?host=/run/pg&password=s3cret&sslmode=require",
          "postgres:///leaks?host=/run/pg&password=***&sslmode=require");
    shown("host=db1 password=s3cret dbname=leaks", "host=db1 password=*** dbname=leaks");
    shown("host=db1 password = 'it\\'s secret' user=ci", "host=db1 password = *** user=ci");
    shown("host=db1 password=my secret", "host=db1 password=***");
    shown("host=db1 password=my secret user=ci", "host=db1 password=*** user=ci");
    shown("sslpassword=keyphrase host=db1", "sslpassword=*** host=db1");
    shown("postgres:///leaks?sslpassword=kp&sslmode=require",
          "postgres:///leaks?sslpassword=***&sslmode=require");
    shown("mypassword=x host=db1", "mypassword=x host=db1");
    shown("password=a password=b", "password=*** password=***");
    shown("/var/lib/leakray/store.db", "/var/lib/leakray/store.db");
    char small[12];
    url_hide_password("host=db1 password=s3cret", small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_null(strstr(small, "s3cret"));
}

static void message(const char *url, const char *msg, const char *want)
{
    char m[256];
    snprintf(m, sizeof m, "%s", msg);
    url_hide_in_message(url, m, sizeof m);
    assert_string_equal(m, want);
}

static void test_hide_in_message(void **state)
{
    (void)state;
    message("postgres://ci:50%off@db1/leaks", "invalid percent-encoded token: \"50%off\"",
            "invalid percent-encoded token: \"***\"");
    message("host=db1 password=my SPACEsecret", "missing \"=\" after \"SPACEsecret\" in "
            "connection info string", "missing \"=\" after \"***\" in connection info string");
    message("host=db1 password=s3cretword", "connection to server at \"db1\" failed: "
            "s3cretword", "connection to server at \"db1\" failed: ***");
    /* a quoted piece of the message that is no password's stays */
    message("postgres://ci:s3cret@127.0.0.1/leaks",
            "connection to server at \"127.0.0.1\", port 5432 failed",
            "connection to server at \"127.0.0.1\", port 5432 failed");
    message("postgres://ci@db1/leaks", "FATAL: role \"ci\" does not exist",
            "FATAL: role \"ci\" does not exist");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hide_password),
        cmocka_unit_test(test_hide_in_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
