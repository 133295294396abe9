/* cppplug.cc: the C++ plugin cpphost.c loads: one object lost (72 bytes, new), one deleted,
 * a std::string and a std::vector made and freed on the way. */
#include <string>
#include <vector>

struct Record {
    long v[9];
};

static void lose(Record *r)
{
    __asm__ volatile("" : : "r"(r) : "memory");
}

extern "C" int cppplug_run()
{
    std::vector<std::string> words;
    for (int i = 0; i < 100; i++)
        words.push_back(std::string(40, 'a' + i % 26));
    Record *kept = new Record();
    Record *lost = new Record();
    lose(lost);
    int n = (int)words.size();
    delete kept;
    return n;
}
