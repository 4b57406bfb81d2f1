/*
 * guest_links.c - a wasm32-wasi program (built with clang and wasi-libc)
 * that tries to make links in its granted directory, seen as "data":
 * the ones that would lead out of it (an absolute text, more ".." than the
 * link's depth, ".." after a name, a link moved or hard-linked up) must
 * fail with EPERM, the ones that stay inside must be made.  Prints one
 * line per attempt; exits 0 when every attempt went as it should, else 1.
 * wasi_guest_links.sh then checks the host directory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int wrong;

/* An attempt: rc (0 or -1 with errno), and whether it had to be refused. */
static void expect(const char *what, int rc, int refused)
{
    int e = errno;
    int ok = refused ? rc == -1 && e == EPERM : rc == 0;
    printf("%s %s: %s\n", ok ? "ok" : "WRONG", what, rc == 0 ? "made" : strerror(e));
    wrong |= !ok;
}

int main(void)
{
    if (mkdir("data/sub", 0777) != 0 || mkdir("data/sub/deeper", 0777) != 0) {
        perror("mkdir data/sub");
        return 2;
    }
    FILE *f = fopen("data/sub/file", "w");
    if (!f || fputs("inside\n", f) == EOF || fclose(f) != 0) {
        perror("data/sub/file");
        return 2;
    }
    expect("symlink ../outside data/evil", symlink("../outside", "data/evil"), 1);
    expect("symlink /etc/passwd data/abs", symlink("/etc/passwd", "data/abs"), 1);
    expect("symlink a/../../x data/up", symlink("a/../../x", "data/up"), 1);
    expect("symlink sub/../x data/dotdot", symlink("sub/../x", "data/dotdot"), 1);
    expect("symlink ../../x data/sub/up", symlink("../../x", "data/sub/up"), 1);
    expect("symlink sub/file data/ok", symlink("sub/file", "data/ok"), 0);
    expect("symlink ../file data/sub/ok", symlink("../file", "data/sub/ok"), 0);
    expect("symlink ../../sub/file data/sub/deeper/ok",
           symlink("../../sub/file", "data/sub/deeper/ok"), 0);
    expect("rename data/sub/ok data/moved", rename("data/sub/ok", "data/moved"), 1);
    expect("link data/sub/ok data/hard", link("data/sub/ok", "data/hard"), 1);
    expect("rename data/sub/deeper data/deeper", rename("data/sub/deeper", "data/deeper"), 1);
    expect("rename data/sub/ok data/sub/deeper/moved",
           rename("data/sub/ok", "data/sub/deeper/moved"), 0);
    /* The links made lead where they should. */
    char text[64] = "";
    f = fopen("data/ok", "r");
    if (!f || !fgets(text, sizeof text, f) || strcmp(text, "inside\n") != 0) {
        printf("WRONG data/ok does not lead to data/sub/file\n");
        wrong = 1;
    }
    if (f)
        fclose(f);
    return wrong;
}
