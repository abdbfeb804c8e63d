// The store cache stays under its size limit: least recently used stores go first (a read
// counts as a use), stores in use are never removed, other files are left alone, and saving
// through the real cache applies LoadOptions::cacheLimitBytes.

#include "core/io/cachetrim.h"
#include "core/io/storecache.h"
#include "core/model/tracebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>

using namespace tracedesk::core;
namespace fs = std::filesystem;

namespace {

// A file of `bytes` bytes whose last use (modification time) is `second` seconds after 2020.
void makeFile(const std::string &path, size_t bytes, int second)
{
    std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
    const timespec when{1577836800 + second, 0};
    const timespec times[2] = {when, when};
    QCOMPARE(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

QStringList names(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files, QDir::Name);
}

std::shared_ptr<Trace> smallTrace(const char *name)
{
    TraceBuilder builder;
    const uint32_t plane = builder.addPlane("host", "host", 1, PlaneKind::Host);
    const uint32_t track = builder.addTrack(plane, "main", 1);
    EventKind k;
    k.name = builder.intern(name);
    const uint32_t kind = builder.addKind(k);
    for (int i = 0; i < 100; ++i)
        builder.trackBuilder(track).addSlice(i * 10, 5, kind);
    return builder.build();
}

} // namespace

class TestCacheTrim : public QObject
{
    Q_OBJECT

private slots:
    void removesLeastRecentlyUsedFirst();
    void readCountsAsUse();
    void storeInUseIsKept();
    void cacheLimitAppliedOnSave();
};

void TestCacheTrim::removesLeastRecentlyUsedFirst()
{
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    makeFile(dir + "/a.tdstore", 100, 1);
    makeFile(dir + "/b.tdstore", 100, 2);
    makeFile(dir + "/c.tdstore", 100, 3);
    makeFile(dir + "/d.tdstore", 100, 4);
    makeFile(dir + "/notes.txt", 1000, 0);   // not a store: never counted, never removed
    QCOMPARE(cacheSizeBytes(dir), uint64_t(400));
    // 400 bytes against a 250-byte limit: the two oldest go, 200 bytes remain.
    const CacheTrimResult r = trimCache(dir, 250);
    QCOMPARE(r.removedFiles, size_t(2));
    QCOMPARE(r.removedBytes, uint64_t(200));
    QCOMPARE(r.keptBytes, uint64_t(200));
    QCOMPARE(names(tmp.path()), (QStringList{"c.tdstore", "d.tdstore", "notes.txt"}));
    // Under the limit already: nothing more goes.
    QCOMPARE(trimCache(dir, 250).removedFiles, size_t(0));
    QCOMPARE(clearCache(dir).removedFiles, size_t(2));
    QCOMPARE(names(tmp.path()), QStringList{"notes.txt"});
}

void TestCacheTrim::readCountsAsUse()
{
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    makeFile(dir + "/a.tdstore", 100, 1);
    makeFile(dir + "/b.tdstore", 100, 2);
    makeFile(dir + "/c.tdstore", 100, 3);
    markCacheFileUsed(dir + "/a.tdstore");   // now the most recent
    trimCache(dir, 150);
    QCOMPARE(names(tmp.path()), QStringList{"a.tdstore"});
}

void TestCacheTrim::storeInUseIsKept()
{
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    makeFile(dir + "/a.tdstore", 100, 1);
    makeFile(dir + "/b.tdstore", 100, 2);
    {
        const auto lease = CacheFileLease::acquire(dir + "/a.tdstore");
        QVERIFY(lease);
        const CacheTrimResult r = trimCache(dir, 0);
        QCOMPARE(r.removedFiles, size_t(1));
        QCOMPARE(r.keptBytes, uint64_t(100));
        QCOMPARE(names(tmp.path()), QStringList{"a.tdstore"});
    }
    QCOMPARE(trimCache(dir, 0).removedFiles, size_t(1));   // released: it may go now
    QCOMPARE(names(tmp.path()), QStringList());
}

void TestCacheTrim::cacheLimitAppliedOnSave()
{
    QTemporaryDir sources, cache;
    const std::string a = (sources.path() + "/a.json").toStdString();
    const std::string b = (sources.path() + "/b.json").toStdString();
    std::ofstream(a) << "{\"traceEvents\": []}";
    std::ofstream(b) << "{\"traceEvents\": [ ]}";
    LoadOptions options;
    options.cacheDir = cache.path().toStdString();
    options.cacheLimitBytes = 0;
    saveCachedTrace(*smallTrace("first"), {a}, options);
    const std::string storeA = cacheFileFor({a}, options);
    QVERIFY(fs::exists(storeA));
    const uint64_t oneStore = fs::file_size(storeA);

    // Room for one store: saving b's evicts a's, the older one.
    options.cacheLimitBytes = oneStore + oneStore / 2;
    saveCachedTrace(*smallTrace("other"), {b}, options);
    const std::string storeB = cacheFileFor({b}, options);
    QVERIFY(fs::exists(storeB));
    QVERIFY(!fs::exists(storeA));

    // b's store read back is in use: saving a again with no room left keeps b's, drops a's own.
    const auto loaded = loadCachedTrace({b}, options, nullptr);
    QVERIFY(loaded);
    options.cacheLimitBytes = 1;
    saveCachedTrace(*smallTrace("first"), {a}, options);
    QVERIFY(fs::exists(storeB));
    QVERIFY(!fs::exists(storeA));
}

QTEST_GUILESS_MAIN(TestCacheTrim)
#include "tst_cachetrim.moc"
