/* SPDX-License-Identifier: Apache-2.0 */
/* report_jsdupes_test.c: memlab's duplicate strings in the report model (src/report/model.c
 * js_strings) and the HTML page. A hand-made V8 snapshot holds duplicated values a page
 * must survive: a closing script tag with quotes, U+2028 and a byte that is not UTF-8; a
 * 6,001-byte value whose 1,024-byte cut falls inside a two-byte character; a value with 20
 * copies. The model must carry jsdup_find's numbers, cut the long value on a character
 * boundary, list 16 ids, write only valid UTF-8, and in its HTML-safe form (the page's data
 * island) no '<' or '>' at all; the page must hold exactly its three script elements. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/jsdupes.h"
#include "analysis/memlabdom.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "format/v8.h"
#include "graph/graph.h"
#include "report/html.h"
#include "report/model.h"

#define MARKUP "</script><script>alert(1)</script>\\\"q'\xe2\x80\xa8\xff"
#define N_MARKUP 3
#define N_LONG 2
#define N_ID 20
#define LONG_CHARS 3000 /* "x" then this many U+00E9: 6,001 bytes */

/* Root -> holder -> every string by element edges; strings: 0 "", 1 "holder", 2 MARKUP,
 * 3 the long value, 4 "id". */
static char *snapshot(size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    unsigned n_str = N_MARKUP + N_LONG + N_ID, n_nodes = 2 + n_str;
    fprintf(f,
            "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
            "\"edge_count\",\"trace_node_id\",\"detachedness\"],"
            "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
            "\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\","
            "\"sliced string\",\"symbol\",\"bigint\",\"object shape\"],\"string\",\"number\","
            "\"number\",\"number\",\"number\",\"number\"],"
            "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
            "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\","
            "\"shortcut\",\"weak\"],\"string_or_number\",\"node\"],"
            "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]},"
            "\"node_count\":%u,\"edge_count\":%u,\"trace_function_count\":0},\n"
            "\"nodes\":[9,0,1,0,1,0,0,3,1,3,32,%u,0,0",
            n_nodes, 1 + n_str, n_str);
    for (unsigned i = 0; i < n_str; i++) {
        unsigned name = i < N_MARKUP ? 2 : i < N_MARKUP + N_LONG ? 3 : 4;
        fprintf(f, ",2,%u,%u,40,0,0,0", name, 5 + 2 * i);
    }
    fprintf(f, "],\n\"edges\":[1,0,7");
    for (unsigned i = 0; i < n_str; i++)
        fprintf(f, ",1,%u,%u", i, 7 * (2 + i));
    fprintf(f, "],\"strings\":[\"\",\"holder\",\"" MARKUP "\",\"x");
    for (unsigned i = 0; i < LONG_CHARS; i++)
        fputs("\xc3\xa9", f);
    fprintf(f, "\",\"id\"]}");
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void load(graph *g)
{
    size_t len;
    char *text = snapshot(&len);
    mfile m;
    lr_error e = {0};
    memset(&m, 0, sizeof m);
    graph_init(g);
    g->path = strdup("hostile.heapsnapshot");
    assert_int_equal(mfile_from_memory(&m, (const uint8_t *)text, len, 0, g->path, &e), LR_OK);
    assert_true(fmt_v8_reader.sniff(m.data, m.len));
    if (fmt_v8_reader.load(g, &m, &(fmt_opts){.dump_index = -1}, &e) != LR_OK)
        fail_msg("load: %s", e.msg);
    mfile_close(&m);
    free(text);
}

/* 1 when s[0..n) is well-formed UTF-8. */
static int utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                                         : (c & 0xf8) == 0xf0 ? 3 : 9;
        if (k == 9 || i + k >= n + (k ? 0 : 1))
            return 0;
        for (unsigned j = 1; j <= k; j++)
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
        i += k + 1;
    }
    return 1;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static char *render(const rep_report *r, int html, int safe, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(html ? rep_html(f, r) : rep_report_json(f, r, safe), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_hostile_values(void **state)
{
    (void)state;
    graph g;
    load(&g);
    mldom_tree dt;
    jsdup_result js;
    lr_error e = {0};
    assert_int_equal(mldom_build(&g, &dt, &e), LR_OK);
    assert_int_equal(jsdup_find(&g, &dt, &js, &e), LR_OK);
    assert_int_equal(js.n_members, N_MARKUP + N_LONG + N_ID);
    assert_int_equal(js.n_top_count, 3);

    rep_report r;
    memset(&r, 0, sizeof r);
    r.g = &g;
    r.path = "hostile.heapsnapshot";
    r.no_timing = 1;
    r.js_strings = &js;
    size_t len;
    char *raw = render(&r, 0, 0, &len);
    assert_true(utf8_ok((const unsigned char *)raw, len));
    assert_non_null(strstr(raw, "\"js_strings\":{\"strings\":25,\"values\":3,"));
    /* counts and retained sizes as jsdup_find made them; ids in the model's form, 16 */
    assert_non_null(strstr(raw, "\"count\":20,\"size\":800,\"wasted_bytes\":760,"
                                "\"ids\":[\"@15\",\"@17\","));
    assert_non_null(strstr(raw, "\"@45\"]"));
    assert_null(strstr(raw, "\"@47\""));
    /* the markup, as JSON text: the byte that is not UTF-8 became U+FFFD (escaped) */
    assert_non_null(strstr(raw, "\"value\":\"</script><script>alert(1)</script>\\\"q'"
                                "\xe2\x80\xa8\\ufffd\",\"value_bytes\":41,"
                                "\"value_truncated\":false,\"count\":3"));
    /* the long value: 1,023 bytes (the 1,024th would split an e-acute), cut flagged */
    const char *lv = strstr(raw, "\"value\":\"x\xc3\xa9");
    assert_non_null(lv);
    const char *end = strchr(lv + 9, '"');
    assert_int_equal(end - (lv + 9), 1023);
    assert_non_null(strstr(end, "\",\"value_bytes\":6001,\"value_truncated\":true,\"count\":2"));
    free(raw);

    char *safe = render(&r, 0, 1, &len);
    assert_null(memchr(safe, '<', len));
    assert_null(memchr(safe, '>', len));
    assert_null(strstr(safe, "\xe2\x80\xa8"));
    assert_non_null(strstr(safe, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
    assert_non_null(strstr(safe, "\\u2028"));
    free(safe);

    char *page = render(&r, 1, 1, &len);
    assert_int_equal(count(page, "<script"), 3);
    assert_int_equal(count(page, "</script"), 3);
    assert_true(utf8_ok((const unsigned char *)page, len));
    free(page);

    /* no result: no key (the section is left out) */
    r.js_strings = NULL;
    raw = render(&r, 0, 0, &len);
    assert_null(strstr(raw, "js_strings"));
    free(raw);
    jsdup_free(&js);
    mldom_free(&dt);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
