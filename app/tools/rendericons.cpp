// tracedesk-render-icons OUTDIR SIZE...: writes OUTDIR/<SIZE>x<SIZE>/apps/tracedesk.png for each
// size, from the same painting the window uses, so the desktop entry's icon never drifts from
// the one in the title bar. Runs at build time on the offscreen platform.

#include "views/common/appicon.h"

#include <QDir>
#include <QGuiApplication>

#include <cstdio>

int main(int argc, char **argv)
{
    QGuiApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 3) {
        std::fprintf(stderr, "usage: tracedesk-render-icons OUTDIR SIZE...\n");
        return 2;
    }
    for (qsizetype i = 2; i < args.size(); ++i) {
        bool ok = false;
        const int size = args[i].toInt(&ok);
        if (!ok || size < 8 || size > 1024) {
            std::fprintf(stderr, "tracedesk-render-icons: bad size '%s'\n", qPrintable(args[i]));
            return 2;
        }
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(args[1]).arg(size);
        const QString path = dir + QStringLiteral("/tracedesk.png");
        if (!QDir().mkpath(dir) || !tracedesk::views::appIconImage(size).save(path, "PNG")) {
            std::fprintf(stderr, "tracedesk-render-icons: cannot write %s\n", qPrintable(path));
            return 1;
        }
    }
    return 0;
}
