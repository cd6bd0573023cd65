/* The C ceiling for store_vs_mooncake.py: the same batch put and get over one loopback TCP
 * connection, with nothing in the way (no metadata, no checksum, no interpreter).
 *
 *   loopback_ceiling server PORT ARENA_BYTES
 *       listens on 127.0.0.1:PORT, prints READY, then serves one connection after another:
 *       a 16-byte request (op u32, count u32, size u64, network order); op 1 (put) receives
 *       count*size bytes into its arena and answers one byte; op 2 (get) sends count objects
 *       of size bytes from its arena with writev, one iovec per object.
 *   loopback_ceiling client PORT SIZE COUNT ROUNDS LATENCY_SAMPLES
 *       puts then gets COUNT objects of SIZE bytes, ROUNDS times, checks the bytes read back,
 *       then times LATENCY_SAMPLES single-object puts and gets; prints one JSON object of the
 *       seconds each took: {"put": [...], "get": [...], "lat_put": [...], "lat_get": [...]}.
 *
 * Buffers start on a page boundary, as the Python systems' buffers do. Built by the benchmark
 * with the machine's C compiler (cc -O2) into benchmarks/out/.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_IOV 1024

static void die(const char *what) {
    perror(what);
    exit(1);
}

static unsigned char *aligned(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1)) die("posix_memalign");
    memset(p, 0, n);
    return p;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int recv_all(int fd, unsigned char *buf, size_t n) {
    while (n) {
        ssize_t got = recv(fd, buf, n, MSG_WAITALL);
        if (got <= 0) return -1;
        buf += got;
        n -= (size_t)got;
    }
    return 0;
}

/* writev of `count` objects of `size` bytes laid end to end from `base`, after `head`. */
static int send_objects(int fd, const void *head, size_t head_len, unsigned char *base,
                        uint32_t count, uint64_t size) {
    struct iovec iov[MAX_IOV];
    size_t done_obj = 0, skip = 0;  /* objects fully sent; bytes of the next one sent */
    size_t head_left = head_len;
    while (head_left || done_obj < count) {
        int n = 0;
        if (head_left) {
            iov[n].iov_base = (unsigned char *)head + (head_len - head_left);
            iov[n++].iov_len = head_left;
        }
        for (size_t i = done_obj; i < count && n < MAX_IOV; i++) {
            size_t off = i == done_obj ? skip : 0;
            iov[n].iov_base = base + i * size + off;
            iov[n++].iov_len = size - off;
        }
        ssize_t sent = writev(fd, iov, n);
        if (sent < 0) return -1;
        size_t left = (size_t)sent;
        size_t h = left < head_left ? left : head_left;
        head_left -= h;
        left -= h;
        while (left && done_obj < count) {
            size_t rest = size - skip;
            if (left >= rest) {
                left -= rest;
                done_obj++;
                skip = 0;
            } else {
                skip += left;
                left = 0;
            }
        }
    }
    return 0;
}

static void nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

struct conn {
    int fd;
    size_t arena_bytes;
};

/* One connection, with an arena of its own (so that parallel clients can be measured too). */
static void *serve_conn(void *arg) {
    struct conn *c = arg;
    int fd = c->fd;
    unsigned char *arena = aligned(c->arena_bytes);
    unsigned char head[16];
    nodelay(fd);
    while (recv_all(fd, head, sizeof head) == 0) {
        uint32_t op, count;
        uint64_t size;
        memcpy(&op, head, 4);
        memcpy(&count, head + 4, 4);
        memcpy(&size, head + 8, 8);
        op = ntohl(op);
        count = ntohl(count);
        size = be64toh(size);
        if ((uint64_t)count * size > c->arena_bytes) break;
        if (op == 1) {
            if (recv_all(fd, arena, (size_t)count * size)) break;
            if (send(fd, "\1", 1, 0) != 1) break;
        } else if (send_objects(fd, NULL, 0, arena, count, size)) {
            break;
        }
    }
    close(fd);
    free(arena);
    free(c);
    return NULL;
}

static int serve(int port, size_t arena_bytes) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 8)) die("bind/listen");
    printf("READY\n");
    fflush(stdout);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) continue;
        struct conn *c = malloc(sizeof *c);
        c->fd = fd;
        c->arena_bytes = arena_bytes;
        pthread_t t;
        if (pthread_create(&t, NULL, serve_conn, c)) die("pthread_create");
        pthread_detach(t);
    }
    return 0;  /* not reached: the benchmark kills the server */
}

static void request(unsigned char head[16], uint32_t op, uint32_t count, uint64_t size) {
    uint32_t o = htonl(op), c = htonl(count);
    uint64_t s = htobe64(size);
    memcpy(head, &o, 4);
    memcpy(head + 4, &c, 4);
    memcpy(head + 8, &s, 8);
}

static double put(int fd, unsigned char *src, uint32_t count, uint64_t size) {
    unsigned char head[16], ack;
    request(head, 1, count, size);
    double t0 = now();
    if (send_objects(fd, head, sizeof head, src, count, size) || recv_all(fd, &ack, 1))
        die("put");
    return now() - t0;
}

static double get(int fd, unsigned char *dst, uint32_t count, uint64_t size) {
    unsigned char head[16];
    request(head, 2, count, size);
    double t0 = now();
    if (send(fd, head, sizeof head, 0) != sizeof head) die("get request");
    for (uint32_t i = 0; i < count; i++)  /* each object into its own place, as a client does */
        if (recv_all(fd, dst + (size_t)i * size, size)) die("get");
    return now() - t0;
}

static void print_list(const char *name, const double *v, int n, int last) {
    printf("\"%s\": [", name);
    for (int i = 0; i < n; i++) printf("%s%.9f", i ? ", " : "", v[i]);
    printf("]%s", last ? "" : ", ");
}

static int client(int port, uint64_t size, uint32_t count, int rounds, int lat_n) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) die("connect");
    nodelay(fd);
    size_t total = (size_t)count * size;
    unsigned char *src = aligned(total), *dst = aligned(total);
    for (size_t i = 0; i < total; i++) src[i] = (unsigned char)(i * 2654435761u >> 13);
    double *p = calloc(rounds, sizeof *p), *g = calloc(rounds, sizeof *g);
    double *lp = calloc(lat_n, sizeof *lp), *lg = calloc(lat_n, sizeof *lg);
    for (int r = 0; r < rounds; r++) {
        memset(dst, 0, total);
        p[r] = put(fd, src, count, size);
        g[r] = get(fd, dst, count, size);
        if (memcmp(src, dst, total)) {
            fprintf(stderr, "wrong bytes read back for size %llu\n", (unsigned long long)size);
            return 1;
        }
    }
    for (int i = 0; i < lat_n; i++) {
        lp[i] = put(fd, src, 1, size);
        lg[i] = get(fd, dst, 1, size);
    }
    printf("{");
    print_list("put", p, rounds, 0);
    print_list("get", g, rounds, 0);
    print_list("lat_put", lp, lat_n, 0);
    print_list("lat_get", lg, lat_n, 1);
    printf("}\n");
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "server"))
        return serve(atoi(argv[2]), strtoull(argv[3], NULL, 10));
    if (argc == 7 && !strcmp(argv[1], "client"))
        return client(atoi(argv[2]), strtoull(argv[3], NULL, 10),
                      (uint32_t)strtoul(argv[4], NULL, 10), atoi(argv[5]), atoi(argv[6]));
    fprintf(stderr, "usage: %s server PORT ARENA_BYTES | client PORT SIZE COUNT ROUNDS LAT_N\n",
            argv[0]);
    return 2;
}
