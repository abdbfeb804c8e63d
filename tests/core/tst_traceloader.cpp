// Path resolution: single files, run folders, logdirs with several runs, and bad paths.

#include "core/io/traceloader.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace tracedesk::core;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path &p, std::string_view content = "x")
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
}

} // namespace

class TestTraceLoader : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    fs::path root() const { return fs::path(m_dir.path().toStdString()); }

private slots:
    void detectsByNameThenContent()
    {
        touch(root() / "a.xplane.pb", "\x0a\x00");
        touch(root() / "b.trace.json.gz", "");
        touch(root() / "c.pt.trace.json", "{}");
        touch(root() / "noext_json", "  [ {} ]");
        touch(root() / "noext_gz", "\x1f\x8b\x08");
        touch(root() / "noext_text", "hello world");
        touch(root() / "empty", "");
        QCOMPARE(detectFormat((root() / "a.xplane.pb").string()).value(), SourceFormat::XSpace);
        QCOMPARE(detectFormat((root() / "b.trace.json.gz").string()).value(), SourceFormat::ChromeJson);
        QCOMPARE(detectFormat((root() / "c.pt.trace.json").string()).value(), SourceFormat::ChromeJson);
        QCOMPARE(detectFormat((root() / "noext_json").string()).value(), SourceFormat::ChromeJson);
        QCOMPARE(detectFormat((root() / "noext_gz").string()).value(), SourceFormat::ChromeJson);
        const auto text = detectFormat((root() / "noext_text").string());
        QVERIFY(!text.ok());
        QVERIFY(text.message().find("noext_text") != std::string::npos);
        const auto empty = detectFormat((root() / "empty").string());
        QVERIFY(!empty.ok());
        QVERIFY(empty.message().find("empty") != std::string::npos);
    }

    void runFolderTakesEveryHost()
    {
        const fs::path run = root() / "run1";
        touch(run / "host-b.xplane.pb");
        touch(run / "host-a.xplane.pb");
        touch(run / "notes.txt");
        auto r = resolveSource(run.string());
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(r.value().format, SourceFormat::XSpace);
        QCOMPARE(r.value().files.size(), size_t(2));
        QVERIFY(r.value().files[0].find("host-a") != std::string::npos);
    }

    void logdirOpensNewestRunUnlessNamed()
    {
        const fs::path logdir = root() / "logdir";
        touch(logdir / "plugins/profile/2024_01_01_10_00_00/h.xplane.pb");
        touch(logdir / "plugins/profile/2024_03_01_10_00_00/h.xplane.pb");
        touch(logdir / "plugins/profile/2024_02_01_10_00_00/h.xplane.pb");
        const auto runs = listRuns(logdir.string());
        QCOMPARE(runs.size(), size_t(3));
        QCOMPARE(runs.front(), std::string("2024_01_01_10_00_00"));
        auto newest = resolveSource(logdir.string());
        QVERIFY(newest.ok());
        QCOMPARE(newest.value().runName, std::string("2024_03_01_10_00_00"));
        auto named = resolveSource(logdir.string(), "2024_01_01_10_00_00");
        QVERIFY(named.ok());
        QCOMPARE(named.value().runName, std::string("2024_01_01_10_00_00"));
        auto missing = resolveSource(logdir.string(), "nope");
        QVERIFY(!missing.ok());
        QVERIFY(missing.message().find("nope") != std::string::npos);
        // The plugins/profile folder itself also works as a logdir.
        auto inner = resolveSource((logdir / "plugins/profile").string());
        QVERIFY(inner.ok());
        QCOMPARE(inner.value().runName, std::string("2024_03_01_10_00_00"));
    }

    void folderWithoutProfilesIsAnError()
    {
        const fs::path dir = root() / "nothing";
        touch(dir / "readme.txt");
        auto r = resolveSource(dir.string());
        QVERIFY(!r.ok());
        QVERIFY(r.message().find(dir.string()) != std::string::npos);
        QVERIFY(r.message().find("no profile") != std::string::npos);
        auto gone = resolveSource((root() / "does-not-exist").string());
        QVERIFY(!gone.ok());
        QVERIFY(gone.message().find("no such file") != std::string::npos);
    }

    void severalJsonFilesAskToChoose()
    {
        const fs::path dir = root() / "jsons";
        touch(dir / "a.json", "[]");
        touch(dir / "b.json", "[]");
        auto r = resolveSource(dir.string());
        QVERIFY(!r.ok());
        QVERIFY(r.message().find("open one of them") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTraceLoader)
#include "tst_traceloader.moc"
