/* newdel.cc: C++ blocks through every form of operator new (plain, array, nothrow, aligned),
 * freed by the matching delete (sized, aligned), then lost: 3 direct leaks (an object of 48
 * bytes, an array of 400, a 64-aligned object of 256) and one indirect (the 24-byte node the
 * lost object holds); a std::vector and a std::string a global keeps are not leaks. Exits 0
 * only if every surviving block reads back what was written (the allocator was not fooled). */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>
#include "scrub.h"

struct Node {
    long v[3];
};
struct Holder {
    Node *node;
    char pad[40];
};
struct alignas(64) Wide {
    char bytes[256];
};

std::vector<int> *kept_vec;
std::string *kept_str;

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 1000; i++) {
        Holder *h = new Holder;
        int *a = new int[i % 50 + 1];
        Wide *w = new Wide;
        Node *n = new (std::nothrow) Node;
        if ((uintptr_t)w % 64)
            std::abort();
        escape(h);
        escape(a);
        delete n;
        delete w;
        delete[] a;
        delete h;
    }
}

__attribute__((noinline)) static void lose(void)
{
    Holder *h = new Holder;
    h->node = new Node;
    escape(h);
    escape(new int[100]);
    Wide *w = new Wide;
    if ((uintptr_t)w % 64)
        std::abort();
    escape(w);
}

int main()
{
    kept_vec = new std::vector<int>(1000, 7);
    kept_str = new std::string(200, 'x');
    churn();
    lose();
    scrub();
    for (int x : *kept_vec)
        if (x != 7)
            return 1;
    if (*kept_str != std::string(200, 'x'))
        return 1;
    std::puts("ok");
    return 0;
}
