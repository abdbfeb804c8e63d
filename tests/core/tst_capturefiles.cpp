// Publishing a captured file where the file system lacks hard links or renameat2: the calls
// are replaced through PendingFile::setPublishCalls(), the file lands complete under the first
// free name, an existing file is never replaced, and when every way fails the capture is kept.

#include "core/capture/capturefiles.h"

#include <QtTest>

#include <cerrno>

#include <fcntl.h>

using namespace tracedesk::core;
using namespace tracedesk::core::capture;

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every entry of `dir`, hidden ones included, sorted.
QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden, QDir::Name);
}

// Calls counted per way, so a test can tell which way published.
int g_links = 0, g_renames = 0, g_creates = 0;

int linkUnsupported(const char *, const char *)
{
    ++g_links;
    errno = EPERM;   // what vfat and exFAT answer
    return -1;
}

int renameUnsupported(const char *, const char *)
{
    ++g_renames;
    errno = EINVAL;   // a file system without RENAME_NOREPLACE
    return -1;
}

int createCounted(const char *path)
{
    ++g_creates;
    return ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

int createFails(const char *)
{
    ++g_creates;
    errno = ENOSPC;
    return -1;
}

// A 3 MB payload, so the copy fallback goes through several buffers.
QByteArray payload()
{
    QByteArray data(3 * 1024 * 1024 + 17, '\0');
    for (int i = 0; i < data.size(); ++i)
        data[i] = char((i * 131) >> 3);
    return data;
}

} // namespace

class TestCaptureFiles : public QObject
{
    Q_OBJECT

private slots:
    void init() { g_links = g_renames = g_creates = 0; }
    void hardLinkWhenSupported();
    void renameWithoutHardLinks();
    void copyWithoutHardLinksOrRenameat2();
    void copyNeverReplacesAnExistingFile();
    void captureKeptWhenEveryWayFails();
};

void TestCaptureFiles::hardLinkWhenSupported()
{
    QTemporaryDir dir;
    PendingFile f;
    QVERIFY(f.open(dir.path().toStdString(), "h.xplane.pb").ok());
    QVERIFY(f.write("abc", 3));
    const auto saved = f.commit();
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());
    QCOMPARE(q(saved.value()), dir.path() + "/h.xplane.pb");
    QCOMPARE(entries(dir.path()), QStringList{"h.xplane.pb"});   // no temporary left
}

void TestCaptureFiles::renameWithoutHardLinks()
{
    QTemporaryDir dir;
    PendingFile f;
    f.setPublishCalls({linkUnsupported, nullptr, createCounted});
    QVERIFY(f.open(dir.path().toStdString(), "h.xplane.pb").ok());
    const QByteArray data = payload();
    QVERIFY(f.write(data.constData(), size_t(data.size())));
    const auto saved = f.commit();
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());
    QCOMPARE(q(saved.value()), dir.path() + "/h.xplane.pb");
    QCOMPARE(readAll(dir.path() + "/h.xplane.pb"), data);
    QCOMPARE(entries(dir.path()), QStringList{"h.xplane.pb"});
    QCOMPARE(g_links, 1);
    QCOMPARE(g_creates, 0);   // the real renameat2 published it
}

void TestCaptureFiles::copyWithoutHardLinksOrRenameat2()
{
    QTemporaryDir dir;
    PendingFile f;
    f.setPublishCalls({linkUnsupported, renameUnsupported, createCounted});
    QVERIFY(f.open(dir.path().toStdString(), "h.xplane.pb").ok());
    const QByteArray data = payload();
    QVERIFY(f.write(data.constData(), size_t(data.size())));
    const auto saved = f.commit();
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());
    QCOMPARE(readAll(q(saved.value())), data);
    QCOMPARE(entries(dir.path()), QStringList{"h.xplane.pb"});
    QCOMPARE(g_renames, 1);
    QCOMPARE(g_creates, 1);
}

void TestCaptureFiles::copyNeverReplacesAnExistingFile()
{
    QTemporaryDir dir;
    {
        QFile earlier(dir.path() + "/h.xplane.pb");
        QVERIFY(earlier.open(QIODevice::WriteOnly));
        earlier.write("earlier run");
    }
    PendingFile f;
    f.setPublishCalls({linkUnsupported, renameUnsupported, createCounted});
    QVERIFY(f.open(dir.path().toStdString(), "h.xplane.pb").ok());
    QVERIFY(f.write("new", 3));
    const auto saved = f.commit();
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.message().c_str());
    QCOMPARE(q(saved.value()), dir.path() + "/h_1.xplane.pb");
    QCOMPARE(readAll(dir.path() + "/h.xplane.pb"), QByteArray("earlier run"));
    QCOMPARE(readAll(dir.path() + "/h_1.xplane.pb"), QByteArray("new"));
    QCOMPARE(entries(dir.path()), (QStringList{"h.xplane.pb", "h_1.xplane.pb"}));
}

void TestCaptureFiles::captureKeptWhenEveryWayFails()
{
    QTemporaryDir dir;
    const QByteArray data = payload();
    {
        PendingFile f;
        f.setPublishCalls({linkUnsupported, renameUnsupported, createFails});
        QVERIFY(f.open(dir.path().toStdString(), "h.xplane.pb").ok());
        QVERIFY(f.write(data.constData(), size_t(data.size())));
        const auto saved = f.commit();
        QVERIFY(!saved.ok());
        QVERIFY(q(saved.message()).contains("the capture is kept in"));
    }   // destroyed after the failed commit: the temporary must survive that too
    const QStringList left = entries(dir.path());
    QCOMPARE(left.size(), 1);
    QVERIFY(left.front().startsWith(".h.xplane.pb.partial-"));
    QCOMPARE(readAll(dir.path() + "/" + left.front()), data);
}

QTEST_GUILESS_MAIN(TestCaptureFiles)
#include "tst_capturefiles.moc"
