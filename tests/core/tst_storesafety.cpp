// The store cache never loses or corrupts a load: a damaged, truncated or foreign cache entry is
// detected and silently rebuilt, a writer killed half way leaves only temporary files (ignored,
// then cleaned), and loading a profile never writes into the profile's folder.

#include "core/generate/generator.h"
#include "core/io/storecache.h"
#include "core/io/storefile.h"
#include "core/io/traceloader.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace tracedesk::core;
namespace fs = std::filesystem;

namespace {

// `tracedesk-cli summary <source>` with XDG_CACHE_HOME set, in a child started with fork/exec:
// QProcess's launcher is not supported under ThreadSanitizer. Everything the child needs is
// built before the fork.
class CliChild
{
public:
    CliChild(const std::string &cli, const std::string &source, const std::string &xdgCache)
    {
        for (char **e = environ; *e; ++e) {
            if (std::strncmp(*e, "XDG_CACHE_HOME=", 15) != 0)
                m_env.emplace_back(*e);
        }
        m_env.push_back("XDG_CACHE_HOME=" + xdgCache);
        std::vector<char *> envp;
        for (std::string &e : m_env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        const char *argv[] = {cli.c_str(), "summary", source.c_str(), nullptr};
        m_pid = ::fork();
        if (m_pid == 0) {
            const int devnull = ::open("/dev/null", O_WRONLY);
            ::dup2(devnull, 1);
            ::dup2(devnull, 2);
            ::execve(cli.c_str(), const_cast<char *const *>(argv), envp.data());
            ::_exit(127);
        }
    }
    ~CliChild() { kill(); }

    bool started() const { return m_pid > 0; }
    bool running()
    {
        if (m_pid <= 0 || m_reaped)
            return false;
        int status = 0;
        m_reaped = ::waitpid(m_pid, &status, WNOHANG) == m_pid;
        return !m_reaped;
    }
    void kill()
    {
        if (m_pid <= 0 || m_reaped)
            return;
        ::kill(m_pid, SIGKILL);
        int status = 0;
        ::waitpid(m_pid, &status, 0);
        m_reaped = true;
    }

private:
    std::vector<std::string> m_env;
    pid_t m_pid = -1;
    bool m_reaped = false;
};

std::vector<char> readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string &path, const std::vector<char> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

bool isTemporary(const fs::path &p)
{
    return p.filename().string().find(".tdstore.tmp-") != std::string::npos;
}

struct Entries
{
    std::vector<fs::path> finals;
    std::vector<fs::path> temporaries;
};

Entries cacheEntries(const fs::path &dir)
{
    Entries e;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (isTemporary(it->path()))
            e.temporaries.push_back(it->path());
        else if (it->path().extension() == ".tdstore")
            e.finals.push_back(it->path());
    }
    return e;
}

// Names, sizes and modification times of everything under `dir`.
std::map<std::string, std::pair<uintmax_t, int64_t>> snapshot(const fs::path &dir)
{
    std::map<std::string, std::pair<uintmax_t, int64_t>> out;
    for (const auto &e : fs::recursive_directory_iterator(dir)) {
        const uintmax_t size = e.is_regular_file() ? e.file_size() : 0;
        out[e.path().string()] = {size, e.last_write_time().time_since_epoch().count()};
    }
    return out;
}

uint64_t eventsWithoutCache(const std::string &path)
{
    LoadOptions options;
    options.useCache = false;
    auto loaded = loadTrace(path, nullptr, options);
    return loaded ? loaded.value()->eventCount() : 0;
}

} // namespace

class TestStoreSafety : public QObject
{
    Q_OBJECT

private slots:
    // A damaged entry is detected by its checksums, ignored and rewritten; the load is right.
    void damagedCacheIsRebuilt_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("bytes flipped in the middle") << "flip";
        QTest::newRow("truncated") << "truncate";
        QTest::newRow("wrong version") << "version";
        QTest::newRow("empty") << "empty";
        QTest::newRow("header checksum") << "header";
    }

    void damagedCacheIsRebuilt()
    {
        QFETCH(QString, damage);
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        const std::string source = (root / "host.xplane.pb").string();
        GeneratorOptions g;
        g.events = 60000;
        QVERIFY(generateTrace(g, source));
        const uint64_t truth = eventsWithoutCache(source);
        QVERIFY(truth > 0);

        LoadOptions options;
        options.cacheDir = (root / "cache").string();
        auto first = loadTrace(source, nullptr, options);
        QVERIFY(first);
        QVERIFY(!first.value()->info.fromCache);
        const std::string cache = cacheFileFor({source}, options);
        QVERIFY(fs::is_regular_file(cache));

        std::vector<char> bytes = readAll(cache);
        QVERIFY(bytes.size() > 1000);
        if (damage == "flip") {
            for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i)
                bytes[i] = char(~bytes[i]);
        } else if (damage == "truncate") {
            bytes.resize(bytes.size() * 2 / 3);
        } else if (damage == "version") {
            bytes[8] = char(storefile::kVersion + 1);
        } else if (damage == "empty") {
            bytes.clear();
        } else {
            bytes[storefile::kFixedHeaderBytes + 3] ^= 0x40;
        }
        writeAll(cache, bytes);
        QVERIFY(!readStoreFile(cache, nullptr));

        auto second = loadTrace(source, nullptr, options);
        QVERIFY2(second, second ? "" : second.error().message.c_str());
        QVERIFY(!second.value()->info.fromCache);
        QCOMPARE(second.value()->eventCount(), truth);
        // Rewritten whole, and used from then on.
        QVERIFY(readStoreFile(cache, nullptr));
        auto third = loadTrace(source, nullptr, options);
        QVERIFY(third);
        QVERIFY(third.value()->info.fromCache);
        QCOMPARE(third.value()->eventCount(), truth);
        QVERIFY(cacheEntries(root / "cache").temporaries.empty());
    }

    // The CLI is killed while it writes the cache: the final name never holds a partial file,
    // temporaries are ignored, and the next load is right and removes them.
    void killedWhileWritingCache()
    {
        const QString cli = QStringLiteral(TRACEDESK_CLI);
        if (!QFileInfo::exists(cli))
            QSKIP("tracedesk-cli is not built");
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        const std::string source = (root / "run" / "host.xplane.pb").string();
        fs::create_directories(root / "run");
        GeneratorOptions g;
        g.events = 300000;
        QVERIFY(generateTrace(g, source));
        const uint64_t truth = eventsWithoutCache(source);
        QVERIFY(truth > 0);

        // Kill points: before any temporary exists (by time), and right as / shortly after the
        // temporary appears. Where exactly each kill lands does not matter for what is checked.
        const int killPoints[] = {-50, -400, 0, 1, 3, 10, 30};
        int sawTemporary = 0;
        int leftTemporary = 0;
        for (int point : killPoints) {
            const fs::path xdg = root / ("xdg" + std::to_string(point + 1000));
            const fs::path cacheDir = xdg / "tracedesk";
            CliChild child(cli.toStdString(), source, xdg.string());
            QVERIFY(child.started());
            QElapsedTimer clock;
            clock.start();
            while (child.running() && clock.elapsed() < 120000) {
                if (point < 0 && clock.elapsed() >= -point)
                    break;
                if (point >= 0 && !cacheEntries(cacheDir).temporaries.empty()) {
                    ++sawTemporary;
                    if (point > 0)
                        QThread::msleep(unsigned(point));
                    break;
                }
                QThread::usleep(200);
            }
            child.kill();

            // A final entry, if any, is whole.
            const Entries after = cacheEntries(cacheDir);
            for (const fs::path &f : after.finals) {
                auto read = readStoreFile(f.string(), nullptr);
                QVERIFY2(read, read ? "" : read.error().message.c_str());
                QCOMPARE(read.value()->eventCount(), truth);
            }
            QVERIFY(after.finals.size() <= 1);
            leftTemporary += after.temporaries.empty() ? 0 : 1;

            LoadOptions options;
            options.cacheDir = cacheDir.string();
            auto reloaded = loadTrace(source, nullptr, options);
            QVERIFY2(reloaded, reloaded ? "" : reloaded.error().message.c_str());
            QCOMPARE(reloaded.value()->eventCount(), truth);
            const Entries cleaned = cacheEntries(cacheDir);
            QVERIFY2(cleaned.temporaries.empty(), "a dead writer's temporary was left behind");
            QCOMPARE(cleaned.finals.size(), size_t(1));
            auto again = loadTrace(source, nullptr, options);
            QVERIFY(again);
            QVERIFY(again.value()->info.fromCache);
            QCOMPARE(again.value()->eventCount(), truth);
        }
        // At least one kill must have hit a write in progress for the test to mean anything.
        QVERIFY(sawTemporary > 0);
        qInfo("%d of %zu kills hit a cache write in progress; %d left a temporary behind",
              sawTemporary, std::size(killPoints), leftTemporary);
    }

    // A store that would not fit the memory budget is refused before it is decoded.
    void storeRefusedWhenTooBig()
    {
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        const std::string source = (root / "host.xplane.pb").string();
        GeneratorOptions g;
        g.events = 60000;
        QVERIFY(generateTrace(g, source));
        LoadOptions options;
        options.cacheDir = (root / "cache").string();
        QVERIFY(loadTrace(source, nullptr, options));
        const std::string cache = cacheFileFor({source}, options);
        auto refused = readStoreFile(cache, nullptr, 64 * 1024);
        QVERIFY(!refused);
        QVERIFY(refused.error().message.find(cache) != std::string::npos);
        QVERIFY(refused.error().message.find("memory") != std::string::npos);
        QVERIFY(readStoreFile(cache, nullptr));
    }

    // Temporaries of writers still running are left alone; those of dead ones go.
    void staleTemporariesOnly()
    {
        QTemporaryDir dir;
        const fs::path cache(dir.path().toStdString());
        const fs::path live = cache / ("0123456789abcdef.tdstore.tmp-" + std::to_string(::getpid())
                                       + "-0");
        const fs::path dead = cache / "0123456789abcdef.tdstore.tmp-2147483646-3";
        const fs::path other = cache / "notes.txt";
        for (const fs::path &p : {live, dead, other})
            writeAll(p.string(), {'x'});
        removeStaleCacheTemporaries(cache.string());
        QVERIFY(fs::exists(live));
        QVERIFY(!fs::exists(dead));
        QVERIFY(fs::exists(other));
    }

    // Loading (and reloading from the cache) leaves the profile's folder exactly as it was.
    void loadNeverWritesIntoTheProfileFolder_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("two-host run folder") << "run";
        QTest::newRow("logdir") << "logdir";
        QTest::newRow("chrome json file") << "json";
    }

    void loadNeverWritesIntoTheProfileFolder()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        const fs::path logdir = root / "logs";
        const fs::path run = logdir / "plugins" / "profile" / "2024_05_01_10_00_00";
        fs::create_directories(run);
        std::string path;
        if (kind == "json") {
            GeneratorOptions g;
            g.events = 5000;
            g.format = GeneratedFormat::ChromeJson;
            path = (run / "host.trace.json").string();
            QVERIFY(generateTrace(g, path));
        } else {
            for (int h = 0; h < 2; ++h) {
                GeneratorOptions g;
                g.events = 5000;
                g.seed = uint64_t(h + 1);
                QVERIFY(generateTrace(g, (run / ("host" + std::to_string(h) + ".xplane.pb"))
                                             .string()));
            }
            path = kind == "run" ? run.string() : logdir.string();
        }
        const auto before = snapshot(logdir);

        // The default cache location, pointed somewhere harmless.
        const QByteArray savedXdg = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((root / "xdg").string()));
        LoadOptions options;
        auto first = loadTrace(path, nullptr, options);
        auto second = loadTrace(path, nullptr, options);
        if (savedXdg.isNull())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", savedXdg);
        QVERIFY2(first, first ? "" : first.error().message.c_str());
        QVERIFY(second);
        QVERIFY(second.value()->info.fromCache);
        QCOMPARE(second.value()->eventCount(), first.value()->eventCount());
        QVERIFY(!cacheEntries(root / "xdg" / "tracedesk").finals.empty());

        const auto after = snapshot(logdir);
        QCOMPARE(after.size(), before.size());
        QVERIFY(after == before);
    }
};

QTEST_GUILESS_MAIN(TestStoreSafety)
#include "tst_storesafety.moc"
