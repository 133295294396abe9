/* SPDX-License-Identifier: Apache-2.0 */
/* html.c: the self-contained HTML report (report layer), prefix rep_. The page is a fixed
 * frame around four inline parts: report.css, the report model as JSON (model.c, written in
 * its HTML-safe form inside an inert application/json element), kit.js (what this page and
 * the store dashboard draw alike) and report.js, which builds everything with textContent.
 * The assets live in src/report/assets/ and are compiled in by the build
 * (scripts/embed-assets.cmake). The Content-Security-Policy allows no fetch of any kind and
 * only the page's own two scripts, named by their SHA-256, so even a string that got past
 * the escaping could not run. Output size is the model's (bounded) plus ~30 kB. */
#include "report/html.h"

#include <openssl/sha.h>
#include <string.h>

/* Generated from src/report/assets/ by scripts/embed-assets.cmake. */
extern const char rep_asset_kit_js[];
extern const size_t rep_asset_kit_js_len;
extern const char rep_asset_report_js[];
extern const size_t rep_asset_report_js_len;
extern const char rep_asset_report_css[];
extern const size_t rep_asset_report_css_len;

static void sha256_b64(const char *s, size_t n, char out[45])
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char md[SHA256_DIGEST_LENGTH + 1] = {0};
    SHA256((const unsigned char *)s, n, md);
    size_t o = 0;
    for (size_t i = 0; i < SHA256_DIGEST_LENGTH; i += 3) {
        uint32_t v = (uint32_t)md[i] << 16 | (uint32_t)md[i + 1] << 8 | md[i + 2];
        out[o++] = b64[v >> 18 & 63];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = i + 1 < SHA256_DIGEST_LENGTH ? b64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < SHA256_DIGEST_LENGTH ? b64[v & 63] : '=';
    }
    out[o] = 0;
}

void rep_html_head(FILE *out, const char *title, const char *js, size_t js_len)
{
    char kit[45], page[45];
    sha256_b64(rep_asset_kit_js, rep_asset_kit_js_len, kit);
    sha256_b64(js, js_len, page);
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'; script-src 'sha256-%s' 'sha256-%s'; "
            "base-uri 'none'; form-action 'none'\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"leakray\">\n"
            "<title>%s</title>\n<style>\n",
            kit, page, title);
}

void rep_html_scripts(FILE *out, const char *js, size_t js_len)
{
    fputs("</script>\n<script>", out);
    fwrite(rep_asset_kit_js, 1, rep_asset_kit_js_len, out);
    fputs("</script>\n<script>", out);
    fwrite(js, 1, js_len, out);
    fputs("</script>\n</body>\n</html>\n", out);
}

int rep_html(FILE *out, const rep_report *r)
{
    rep_html_head(out, "leakray report", rep_asset_report_js, rep_asset_report_js_len);
    fwrite(rep_asset_report_css, 1, rep_asset_report_css_len, out);
    fputs("</style>\n</head>\n<body>\n<div id=\"app\"></div>\n"
          "<script type=\"application/json\" id=\"leakray-data\">",
          out);
    if (rep_report_json(out, r, 1) != 0)
        return -1;
    rep_html_scripts(out, rep_asset_report_js, rep_asset_report_js_len);
    return ferror(out) ? -1 : 0;
}
