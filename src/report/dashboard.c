/* SPDX-License-Identifier: Apache-2.0 */
/* dashboard.c: the leak store's dashboard page (report layer), prefix rep_. A fixed frame
 * around four inline parts: report.css (the heap report's look: header, tabs, sortable
 * tables, LeakCanary traces), dashboard.css, the model JSON made HTML-safe by rep_json_copy,
 * and dashboard.js. Assets are compiled in from src/report/assets/ by
 * scripts/embed-assets.cmake. Size: the model plus ~25 kB. */
#include "report/dashboard.h"

#include "report/html.h"
#include "report/model.h"

/* Generated from src/report/assets/ by scripts/embed-assets.cmake. */
extern const char rep_asset_report_css[];
extern const size_t rep_asset_report_css_len;
extern const char rep_asset_dashboard_css[];
extern const size_t rep_asset_dashboard_css_len;
extern const char rep_asset_dashboard_js[];
extern const size_t rep_asset_dashboard_js_len;

int rep_dashboard_html(FILE *out, const char *model, size_t len)
{
    rep_html_head(out, "leakray leak store", rep_asset_dashboard_js,
                  rep_asset_dashboard_js_len);
    fwrite(rep_asset_report_css, 1, rep_asset_report_css_len, out);
    fwrite(rep_asset_dashboard_css, 1, rep_asset_dashboard_css_len, out);
    fputs("</style>\n</head>\n<body>\n<div id=\"app\"></div>\n"
          "<script type=\"application/json\" id=\"leakray-store\">",
          out);
    if (rep_json_copy(out, model, len, 1) != 0)
        return -1;
    fputs("</script>\n<script>", out);
    fwrite(rep_asset_dashboard_js, 1, rep_asset_dashboard_js_len, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return ferror(out) ? -1 : 0;
}
