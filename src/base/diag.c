/* SPDX-License-Identifier: Apache-2.0 */
/* diag.c: the one table declaring every counted anomaly (base layer), prefix diag_. Keys are
 * part of the JSON surface (docs/json.md): append rows, never rename them. */
#include "base/diag.h"

static const struct {
    const char *name;
    enum diag_severity sev;
    const char *desc;
} DIAG_TABLE[DIAG_COUNT] = {
    [DIAG_DANGLING_REFERENCE] = {"dangling_reference", DIAG_INFO,
                                 "references to ids with no object record (dropped)"},
    [DIAG_DANGLING_ROOT] = {"dangling_root", DIAG_INFO,
                            "GC roots whose object is not in the dump (dropped)"},
    [DIAG_DUPLICATE_ROOT] = {"duplicate_root", DIAG_INFO,
                             "GC root records repeating an (object, kind) pair"},
    [DIAG_NULL_ROOT] = {"null_root", DIAG_INFO, "GC root records with object id 0"},
    [DIAG_DUPLICATE_ID] = {"duplicate_id", DIAG_DATA_LOSS,
                           "object records reusing an id already seen (references reach "
                           "the first)"},
    [DIAG_UNKNOWN_RECORD] = {"unknown_record", DIAG_INFO,
                             "unknown top-level records skipped by length"},
    [DIAG_SIZE_SATURATED] = {"size_saturated", DIAG_DATA_LOSS,
                             "objects of 4 GiB or more (an object's size is 32-bit) "
                             "counted as 4,294,967,295 bytes: sizes and totals read short"},
    [DIAG_UNKNOWN_CLASS] = {"unknown_class", DIAG_DATA_LOSS,
                            "objects whose class the dump does not define (HPROF: no CLASS_DUMP "
                            "record; Ruby: no class object at its address, as in a "
                            "dump_all(since:) dump)"},
    [DIAG_MISSING_STRING] = {"missing_string", DIAG_INFO,
                             "names referring to a string id with no STRING record"},
    [DIAG_PRIM_ARRAY_NODATA] = {"primitive_array_nodata", DIAG_INFO,
                                "primitive arrays whose contents the dump omits"},
    [DIAG_UNKNOWN_NODE_TYPE] = {"unknown_node_type", DIAG_DATA_LOSS,
                                "nodes whose type index is not declared in meta"},
    [DIAG_UNKNOWN_EDGE_TYPE] = {"unknown_edge_type", DIAG_DATA_LOSS,
                                "edges whose type index is not declared in meta"},
    [DIAG_BAD_EDGE_TARGET] = {"bad_edge_target", DIAG_DATA_LOSS,
                              "edges whose target is not a node (dropped)"},
    [DIAG_EXTRA_DUMPS] = {"extra_dumps", DIAG_INFO,
                          "heap dumps in the file besides the one loaded (see --dump)"},
    [DIAG_TRUNCATED] = {"truncated", DIAG_ERROR,
                        "the file was cut short: a segmented heap dump without HEAP_DUMP_END, "
                        "no heap dump, or no GC roots (Ruby: GC roots whose objects have no "
                        "line) (results are incomplete)"},
    [DIAG_STRING_VALUE_MISMATCH] = {"string_value_mismatch", DIAG_DATA_LOSS,
                                    "string values whose length in bytes differs from the "
                                    "size the dump gives (value not kept)"},
    [DIAG_SHORT_INSTANCE] = {"short_instance", DIAG_DATA_LOSS,
                             "instance records shorter than their class's fields (the "
                             "references past the end are missing)"},
};

const char *diag_name(enum diag_id id) { return id < DIAG_COUNT ? DIAG_TABLE[id].name : "?"; }
const char *diag_description(enum diag_id id)
{
    return id < DIAG_COUNT ? DIAG_TABLE[id].desc : "?";
}
enum diag_severity diag_severity_of(enum diag_id id)
{
    return id < DIAG_COUNT ? DIAG_TABLE[id].sev : DIAG_ERROR;
}
const char *diag_severity_name(enum diag_severity s)
{
    return s == DIAG_INFO ? "info" : s == DIAG_DATA_LOSS ? "data-loss" : "error";
}
