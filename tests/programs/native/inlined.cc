/* inlined.cc: C++ leaks whose allocations are inlined at -O2 (std::make_shared,
 * std::make_unique, a std::vector's first push_back): the leak site is the user's line
 * (marked LEAK-<name> below), which only the call sites of the inlined functions carry. */
#include <memory>
#include <vector>
#include "scrub.h"

struct Big {
    char b[160];
};

__attribute__((noinline)) static void shared_leak()
{
    auto *p = new std::shared_ptr<Big>(std::make_shared<Big>()); // LEAK-shared
    escape(p);
}

__attribute__((noinline)) static void unique_leak()
{
    escape(std::make_unique<Big>().release()); // LEAK-unique
}

__attribute__((noinline)) static void vector_leak()
{
    auto *v = new std::vector<long>;
    v->push_back(1); // LEAK-vector
    escape(v);
}

int main()
{
    shared_leak();
    unique_leak();
    vector_leak();
    scrub();
    return 0;
}
