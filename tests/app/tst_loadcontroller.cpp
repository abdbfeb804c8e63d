// LoadController with the real loader: a trace read from its sources is delivered, and its
// store cache is written afterwards by the worker, so the next opening reads the cache; a
// controller destroyed while such a write may still run leaves a whole cache entry or none, and
// never a temporary file.

#include "app/gui/loadcontroller.h"
#include "core/generate/generator.h"
#include "core/io/storecache.h"
#include "views/common/jobreaper.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace tracedesk;

namespace {

// The names of the files in `dir` (none when it does not exist).
std::vector<std::string> filesIn(const std::string &dir)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
        names.push_back(entry.path().filename().string());
    return names;
}

core::TracePtr loadWith(app::LoadController &controller, const QString &path)
{
    QSignalSpy loaded(&controller, &app::LoadController::loaded);
    QSignalSpy failed(&controller, &app::LoadController::failed);
    controller.start(path);
    [&] { QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() > 0, 60000); }();
    if (loaded.isEmpty())
        return nullptr;
    return loaded.front().front().value<core::TracePtr>();
}

// A generated XSpace trace of about `events` events in `dir`, and options caching into `dir`.
QString generated(const QTemporaryDir &dir, uint64_t events, core::LoadOptions *options)
{
    const QString source = dir.filePath(QStringLiteral("gen.xplane.pb"));
    core::GeneratorOptions generator;
    generator.events = events;
    if (!core::generateTrace(generator, source.toStdString()).ok())
        return {};
    options->cacheDir = dir.filePath(QStringLiteral("cache")).toStdString();
    return source;
}

} // namespace

class TstLoadController : public QObject
{
    Q_OBJECT

private slots:
    void cacheIsWrittenAfterTheTraceIsDelivered();
    void destroyedControllerLeavesNoTemporaryFile();
};

void TstLoadController::cacheIsWrittenAfterTheTraceIsDelivered()
{
    QTemporaryDir dir;
    core::LoadOptions options;
    const QString source = generated(dir, 50000, &options);
    QVERIFY(!source.isEmpty());
    const std::string entry = core::cacheFileFor({source.toStdString()}, options);

    app::LoadController first;
    first.setOptions(options);
    const core::TracePtr read = loadWith(first, source);
    QVERIFY(read);
    QVERIFY(!read->info.fromCache);
    QTRY_VERIFY_WITH_TIMEOUT(std::filesystem::exists(entry), 60000);

    app::LoadController second;
    second.setOptions(options);
    const core::TracePtr cached = loadWith(second, source);
    QVERIFY(cached);
    QVERIFY(cached->info.fromCache);
    QCOMPARE(cached->eventCount(), read->eventCount());
    QCOMPARE(cached->info.warnings, read->info.warnings);
}

void TstLoadController::destroyedControllerLeavesNoTemporaryFile()
{
    QTemporaryDir dir;
    core::LoadOptions options;
    const QString source = generated(dir, 400000, &options);
    QVERIFY(!source.isEmpty());
    {
        app::LoadController controller;
        controller.setOptions(options);
        QVERIFY(loadWith(controller, source));
    }
    views::JobReaper::joinAll();
    const std::string entry = core::cacheFileFor({source.toStdString()}, options);
    const auto names = filesIn(options.cacheDir);
    for (const std::string &name : names)
        QVERIFY2(name.find(".tmp-") == std::string::npos, name.c_str());
    QVERIFY(names.size() <= 1);
    if (!names.empty())
        QCOMPARE(names.front(), std::filesystem::path(entry).filename().string());
}

QTEST_MAIN(TstLoadController)
#include "tst_loadcontroller.moc"
