#include "../core/support/kinetofixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "views/pivot/pivotpanel.h"
#include "views/pivot/pivottreemodel.h"
#include "views/timeline/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSignalSpy>
#include <QHeaderView>
#include <QTreeView>
#include <QtTest>

using namespace tracedesk;

namespace {

// Thread 1: A 0-100 > (B 10-30, C 40-60); A 200-250 > C 210-220. Thread 2: B 0-40 > C 5-15.
const char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "alpha", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 100,
   "args": {"layer": "conv1"}},
  {"ph": "X", "cat": "alpha", "name": "B", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
   "args": {"layer": "conv1"}},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 1, "ts": 40, "dur": 20},
  {"ph": "X", "cat": "alpha", "name": "A", "pid": 1, "tid": 1, "ts": 200, "dur": 50,
   "args": {"layer": "conv2"}},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 1, "ts": 210, "dur": 10},
  {"ph": "X", "cat": "alpha", "name": "B", "pid": 1, "tid": 2, "ts": 0, "dur": 40},
  {"ph": "X", "cat": "beta", "name": "C", "pid": 1, "tid": 2, "ts": 5, "dur": 10}
]})";

QModelIndex rowLabelled(QAbstractItemModel *model, const QString &label,
                        const QModelIndex &parent = {})
{
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex i = model->index(r, 0, parent);
        if (i.data().toString() == label)
            return i;
    }
    return {};
}

} // namespace

class TestPivotView : public QObject
{
    Q_OBJECT

private:
    core::TracePtr m_trace;
    std::unique_ptr<views::TimelineWidget> m_timeline;
    std::unique_ptr<views::PivotPanel> m_panel;

    bool waitComputed()
    {
        QSignalSpy spy(m_panel.get(), &views::PivotPanel::computed);
        return m_panel->isComputing() ? spy.wait(10000) : true;
    }

private slots:
    void init()
    {
        m_trace = testsupport::loadText(kTrace);
        QVERIFY(m_trace);
        m_timeline = std::make_unique<views::TimelineWidget>();
        m_timeline->resize(1000, 400);
        m_timeline->setTrace(m_trace);
        m_panel = std::make_unique<views::PivotPanel>();
        m_panel->resize(900, 500);
        m_panel->setTimelineState(m_timeline->state());
        m_panel->show();
        m_timeline->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
        QSignalSpy spy(m_panel.get(), &views::PivotPanel::computed);
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(m_trace));
        QVERIFY(spy.count() > 0 || spy.wait(10000));
    }

    void cleanup()
    {
        m_panel.reset();
        m_timeline.reset();
    }

    void expandAndOutline()
    {
        QAbstractItemModelTester tester(m_panel->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTreeView *tree = m_panel->treeView();
        QAbstractItemModel *model = tree->model();
        // Default levels: category > name.
        QCOMPARE(model->rowCount(), 2);
        const QModelIndex alpha = rowLabelled(model, "alpha");
        QVERIFY(alpha.isValid());
        QCOMPARE(alpha.row(), 0); // sorted by total, descending
        QCOMPARE(model->index(alpha.row(), views::PivotTreeModel::Count).data().toString(),
                 QString("4"));
        QVERIFY(!tree->isExpanded(alpha));
        // A click on the branch arrow left of the label expands the group.
        const QRect r = tree->visualRect(alpha);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                          QPoint(r.left() - tree->indentation() / 2, r.center().y()));
        QTRY_VERIFY(tree->isExpanded(alpha));
        QCOMPARE(model->rowCount(alpha), 2);
        const QModelIndex a = rowLabelled(model, "A", alpha);
        QVERIFY(a.isValid());
        QCOMPARE(model->index(a.row(), views::PivotTreeModel::Count, alpha).data().toString(),
                 QString("2"));

        // A click on the group outlines its two slices on the timeline.
        QSignalSpy outlined(m_panel.get(), &views::PivotPanel::outlined);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(a).center());
        QVERIFY(outlined.count() > 0 || outlined.wait(5000));
        const auto &h = m_timeline->state()->highlights();
        QCOMPARE(h.total, quint64(2));
        QCOMPARE(h.refs->size(), size_t(2));
        for (const core::SliceRef &s : *h.refs)
            QCOMPARE(m_trace->name(s), std::string_view("A"));
        QVERIFY(m_trace->start((*h.refs)[0]) < m_trace->start((*h.refs)[1]));
        QCOMPARE(h.label, QString("A"));
        // The timeline draws an outline for each (the first brought into view, both visible).
        m_timeline->state()->setWindow(0, 300'000'000);
        const auto &frame = m_timeline->currentFrame();
        const auto outlines = std::count_if(
            frame.overlays.begin(), frame.overlays.end(),
            [](const views::GeoOverlay &o) { return o.kind == views::GeoOverlay::Highlight; });
        QCOMPARE(outlines, 2);

        // A click on the Count header sorts every level by count; the expanded group stays
        // expanded wherever it moves.
        QTest::mouseClick(tree->header()->viewport(), Qt::LeftButton, {},
                          QPoint(tree->header()->sectionViewportPosition(
                                     views::PivotTreeModel::Count) + 5,
                                 tree->header()->height() / 2));
        const Qt::SortOrder order = tree->header()->sortIndicatorOrder();
        QCOMPARE(tree->header()->sortIndicatorSection(), int(views::PivotTreeModel::Count));
        const QModelIndex alphaNow = rowLabelled(model, "alpha");
        QVERIFY(tree->isExpanded(alphaNow));
        for (const QModelIndex &parent : {QModelIndex(), alphaNow}) {
            for (int r = 1; r < model->rowCount(parent); ++r) {
                const qulonglong before = model->index(r - 1, views::PivotTreeModel::Count, parent)
                                              .data(views::PivotTreeModel::kSortRole)
                                              .toULongLong();
                const qulonglong after = model->index(r, views::PivotTreeModel::Count, parent)
                                             .data(views::PivotTreeModel::kSortRole)
                                             .toULongLong();
                QVERIFY(order == Qt::AscendingOrder ? before <= after : before >= after);
            }
        }
    }

    // An XSpace has no categories: the default grouping is Track > Name, not one "(empty)"
    // group; levels the user chose are kept for the next profile.
    // A pivot that keeps no slices (a scope past its limit) outlines a clicked group all the
    // same: the group's slices are found by a walk, earliest first.
    void outlineWithoutKeptSlices()
    {
        QSignalSpy recomputed(m_panel.get(), &views::PivotPanel::computed);
        m_panel->setKeptSlicesLimit(0);
        QVERIFY(recomputed.count() > 0 || recomputed.wait(10000));
        QTreeView *tree = m_panel->treeView();
        QAbstractItemModel *model = tree->model();
        const QModelIndex alpha = rowLabelled(model, "alpha");
        QVERIFY(alpha.isValid());
        tree->expand(alpha);
        const QModelIndex a = rowLabelled(model, "A", alpha);
        QVERIFY(a.isValid());
        QSignalSpy outlined(m_panel.get(), &views::PivotPanel::outlined);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(a).center());
        QVERIFY(outlined.count() > 0 || outlined.wait(5000));
        QCOMPARE(outlined.first().first().toULongLong(), quint64(2));
        const auto &h = m_timeline->state()->highlights();
        QCOMPARE(h.total, quint64(2));
        QCOMPARE(h.refs->size(), size_t(2));
        for (const core::SliceRef &s : *h.refs)
            QCOMPARE(m_trace->name(s), std::string_view("A"));
        QVERIFY(m_trace->start((*h.refs)[0]) < m_trace->start((*h.refs)[1]));
    }

    void defaultLevelsWithoutCategories()
    {
        auto loaded = core::loadTrace(TRACEDESK_TEST_DATA "/../../resources/sample");
        QVERIFY(loaded.ok());
        QSignalSpy spy(m_panel.get(), &views::PivotPanel::computed);
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
        QVERIFY(spy.count() > 0 || spy.wait(10000));
        QTRY_VERIFY(!m_panel->isComputing());
        auto *first = m_panel->findChild<QComboBox *>(QStringLiteral("pivotLevel1"));
        QVERIFY(first);
        QCOMPARE(first->currentText(), QStringLiteral("Track"));
        QAbstractItemModel *model = m_panel->treeView()->model();
        QVERIFY(model->rowCount() > 1);
        QVERIFY(!rowLabelled(model, "(empty)").isValid());
        QVERIFY(rowLabelled(model, "/host:CPU / python").isValid());
        QVERIFY(rowLabelled(model, "/device:GPU:0 / Stream #7(Kernel)").isValid());

        // A trace with categories again, after the user picked Name: Name stays.
        first->setCurrentIndex(first->findText(QStringLiteral("Name")));
        emit first->activated(first->currentIndex());
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(m_trace));
        QTRY_VERIFY(!m_panel->isComputing());
        QCOMPARE(first->currentText(), QStringLiteral("Name"));
    }

    void argKeyLevel()
    {
        m_panel->setLevels({{core::PivotKeyKind::Arg, "layer"}});
        QVERIFY(waitComputed());
        QAbstractItemModel *model = m_panel->treeView()->model();
        QCOMPARE(model->rowCount(), 3);
        QVERIFY(rowLabelled(model, "conv1").isValid());
        QVERIFY(rowLabelled(model, "conv2").isValid());
        const QModelIndex none = rowLabelled(model, "(no layer)");
        QVERIFY(none.isValid());
        QCOMPARE(model->index(none.row(), views::PivotTreeModel::Count).data().toString(),
                 QString("4"));
        QVERIFY(m_panel->csv().startsWith("arg:layer,count,total_ps"));
    }

    void selectionOnly()
    {
        m_panel->setLevels({{core::PivotKeyKind::Name}});
        QVERIFY(waitComputed());
        m_panel->setSelectionOnly(true);
        QVERIFY(waitComputed());
        // No area yet: nothing to group, and the panel says why.
        QCOMPARE(m_panel->treeView()->model()->rowCount(), 0);
        QCOMPARE(m_panel->statusText(), QString("Select an area on the timeline"));
        // An area over thread 2 only, 0-50 us: its B and C.
        uint32_t thread2 = 0;
        for (uint32_t t = 0; t < m_trace->tracks.size(); ++t) {
            if (m_trace->tracks[t].sliceCount == 2)
                thread2 = t;
        }
        QSignalSpy spy(m_panel.get(), &views::PivotPanel::computed);
        m_timeline->state()->selectArea({{0, 50'000'000}, {thread2}});
        QVERIFY(spy.count() > 0 || spy.wait(5000));
        QAbstractItemModel *model = m_panel->treeView()->model();
        QCOMPARE(model->rowCount(), 2);
        QVERIFY(rowLabelled(model, "B").isValid());
        QVERIFY(rowLabelled(model, "C").isValid());
        QVERIFY(m_panel->statusText().contains("selection"));
    }
};

QTEST_MAIN(TestPivotView)
#include "tst_pivotview.moc"
