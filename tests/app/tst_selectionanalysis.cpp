// The Details pane's buttons open the flame graph and the pivot of the timeline's selection.

#include "../core/support/kinetofixtures.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "views/flamegraph/flamegraphpanel.h"
#include "views/flamegraph/flamegraphwidget.h"
#include "views/pivot/pivotpanel.h"
#include "views/pivot/pivottreemodel.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/timelinewidget.h"

#include <QDockWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

namespace {

constexpr core::TimePs kUs = 1'000'000;

// Thread 1: main 0-100 > (f 10-50, g 60-90); main 200-260 > f 210-230. Thread 2: f 0-40.
const char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 60, "dur": 30},
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 210, "dur": 20},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 0, "dur": 40}
]})";

QPushButton *buttonNamed(QWidget *parent, const QString &text)
{
    for (QPushButton *b : parent->findChildren<QPushButton *>()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}

QDockWidget *dockNamed(app::MainWindow &window, const QString &name)
{
    for (QDockWidget *d : window.analysisDocks()->docks()) {
        if (d->objectName() == name)
            return d;
    }
    return nullptr;
}

} // namespace

class TstSelectionAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
    }

    void detailsButtonsOpenFlameGraphAndPivot()
    {
        app::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto trace = testsupport::loadText(kTrace);
        QVERIFY(trace);
        window.showTrace(trace, QStringLiteral("nested"));

        // An area over thread 1, 0-120 us: the first main with f and g.
        uint32_t thread1 = 0;
        for (uint32_t t = 0; t < trace->tracks.size(); ++t) {
            if (trace->tracks[t].sliceCount == 5)
                thread1 = t;
        }
        window.timeline()->state()->selectArea({{0, 120 * kUs}, {thread1}});

        auto *flame = qobject_cast<views::FlameGraphPanel *>(
            window.analysisDocks()->panel(QStringLiteral("FlameGraphDock")));
        QVERIFY(flame);
        QPushButton *flameButton = buttonNamed(window.detailsPane(), QStringLiteral("Flame graph"));
        QVERIFY(flameButton);
        QSignalSpy flameDone(flame, &views::FlameGraphPanel::computed);
        QTest::mouseClick(flameButton, Qt::LeftButton);
        QTRY_VERIFY(dockNamed(window, QStringLiteral("FlameGraphDock"))->isVisible());
        QCOMPARE(flame->scope(), views::FlameGraphPanel::Scope::Area);
        QTRY_VERIFY(!flame->isComputing() && flameDone.count() > 0);
        QVERIFY(flame->graphWidget()->tree());
        QCOMPARE(flame->graphWidget()->tree()->nodes.front().wall, 100 * kUs);

        auto *pivot = qobject_cast<views::PivotPanel *>(
            window.analysisDocks()->panel(QStringLiteral("PivotDock")));
        QVERIFY(pivot);
        QPushButton *pivotButton = buttonNamed(window.detailsPane(), QStringLiteral("Pivot"));
        QVERIFY(pivotButton);
        QTest::mouseClick(pivotButton, Qt::LeftButton);
        QTRY_VERIFY(dockNamed(window, QStringLiteral("PivotDock"))->isVisible());
        QTRY_VERIFY(!pivot->isComputing() && pivot->model()->result() &&
                    pivot->statusText().contains(QStringLiteral("selection")));
        // main, f and g of the first main: 3 slices.
        QCOMPARE(pivot->model()->result()->root().stats.count, uint64_t(3));
        QCOMPARE(pivot->model()->result()->root().stats.wallTotal, 170 * kUs);
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TstSelectionAnalysis)
#include "tst_selectionanalysis.moc"
