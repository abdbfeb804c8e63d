#include "../core/support/kinetofixtures.h"
#include "../core/support/pythonstacktrace.h"

#include "core/analysis/analysiscache.h"
#include "views/compare/compareworkspace.h"
#include "views/flamegraph/flamegraphpanel.h"
#include "views/flamegraph/flamegraphwidget.h"
#include "views/timeline/timelinestate.h"

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>

using namespace tracedesk;

namespace {

constexpr core::TimePs kUs = 1'000'000;

// Thread 1: main 0-100 > (f 10-50 > (h 20-30, h 35-45), g 60-90); main 200-260 > (f, g).
// Thread 2: f 0-40 > h 10-20; h 100-105. Top frames: 205 us in all.
const char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 20, "dur": 10},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 1, "ts": 35, "dur": 10},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 60, "dur": 30},
  {"ph": "X", "cat": "c", "name": "main", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 210, "dur": 20},
  {"ph": "X", "cat": "c", "name": "g", "pid": 1, "tid": 1, "ts": 240, "dur": 10},
  {"ph": "X", "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 0, "dur": 40},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 2, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "c", "name": "h", "pid": 1, "tid": 2, "ts": 100, "dur": 5}
]})";

// g under the first main takes 50 us instead of 30.
std::string slowerTrace()
{
    std::string text = kTrace;
    text.replace(text.find(R"("ts": 0, "dur": 100})"), 21, R"("ts": 0, "dur": 120})");
    text.replace(text.find(R"("ts": 60, "dur": 30})"), 20, R"("ts": 60, "dur": 50})");
    return text;
}

// The drawn rect of the frame named `name` at stack depth `row`.
std::optional<views::FlameRect> rectNamed(const views::FlameGraphWidget *w, const QString &name,
                                          uint32_t row)
{
    for (const views::FlameRect &r : w->frameRects()) {
        if (r.row == row && w->tree()->nameOf(r.node) == name)
            return r;
    }
    return std::nullopt;
}

} // namespace

class TestFlameGraphView : public QObject
{
    Q_OBJECT

private:
    core::TracePtr m_trace;
    std::unique_ptr<views::FlameGraphPanel> m_panel;

    bool waitComputed()
    {
        QSignalSpy spy(m_panel.get(), &views::FlameGraphPanel::computed);
        return m_panel->isComputing() ? spy.wait(10000) : true;
    }

private slots:
    void init()
    {
        m_trace = testsupport::loadText(kTrace);
        QVERIFY(m_trace);
        m_panel = std::make_unique<views::FlameGraphPanel>();
        m_panel->resize(1400, 600);
        m_panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(m_trace));
        QVERIFY(waitComputed());
    }

    void cleanup() { m_panel.reset(); }

    void widthsClickZoomAndBack()
    {
        views::FlameGraphWidget *w = m_panel->graphWidget();
        QVERIFY(w->tree());
        const double width = w->width();
        const auto main = rectNamed(w, "main", 1);
        QVERIFY(main);
        // Top frames in name order: f (40), h (5), main (160) of 205 us.
        QCOMPARE(main->x, width * 45.0 / 205.0);
        QCOMPARE(main->w, width * 160.0 / 205.0);
        QVERIFY(m_panel->statusText().contains("205"));

        QSignalSpy clicked(w, &views::FlameGraphWidget::frameClicked);
        const QPointF centre = w->rectOf(*main).center();
        QTest::mouseClick(w, Qt::LeftButton, {}, centre.toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(w->focus(), main->node);
        QCOMPARE(m_panel->breadcrumbText(), QString("all › main"));
        // Zoomed: main spans the whole width, f under it 60 of 160 us.
        const auto zoomed = rectNamed(w, "main", 1);
        QVERIFY(zoomed);
        QCOMPARE(zoomed->x, 0.0);
        QCOMPARE(zoomed->w, width);
        const auto f = rectNamed(w, "f", 2);
        QVERIFY(f);
        QCOMPARE(f->w, width * 60.0 / 160.0);
        QVERIFY(!rectNamed(w, "h", 1)); // other top frames are out of the zoomed frame

        // Callers and callees of the clicked frame.
        QCOMPARE(m_panel->callersTable()->topLevelItemCount(), 1);
        QCOMPARE(m_panel->callersTable()->topLevelItem(0)->text(0), QString("(top frame)"));
        QCOMPARE(m_panel->calleesTable()->topLevelItemCount(), 2);
        QCOMPARE(m_panel->calleesTable()->topLevelItem(0)->text(0), QString("f")); // 60 > 40

        // Click f, then Esc twice back to the whole graph.
        QTest::mouseClick(w, Qt::LeftButton, {}, w->rectOf(*f).center().toPoint());
        QCOMPARE(m_panel->breadcrumbText(), QString("all › main › f"));
        QCOMPARE(m_panel->callersTable()->topLevelItemCount(), 2); // main and top frame
        QTest::keyClick(w, Qt::Key_Escape);
        QCOMPARE(w->focus(), main->node);
        QTest::keyClick(w, Qt::Key_Escape);
        QCOMPARE(w->focus(), 0u);
        QCOMPARE(m_panel->breadcrumbText(), QString("all"));
    }

    // Twelve nested frames with long names: after a click on the deepest, the breadcrumb is
    // still one short line no wider than the panel (it pushed the caller / callee pane off
    // screen), and its tooltip has the whole path.
    void deepBreadcrumbStaysShort()
    {
        // Plain string literals: moc's reader takes raw ones with quotes inside for the end
        // of the file and finds no class.
        std::string json = "{\"traceEvents\": [";
        for (int d = 0; d < 12; ++d) {
            json += std::string(d ? "," : "") + "{\"ph\": \"X\", \"cat\": \"c\", \"name\": \"frame" +
                    std::to_string(d) + "_" + std::string(60, 'x') +
                    "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(d) +
                    ", \"dur\": " + std::to_string(100 - 2 * d) + "}";
        }
        json += "]}";
        auto trace = testsupport::loadText(json.c_str());
        QVERIFY(trace);
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(trace));
        QVERIFY(waitComputed());
        views::FlameGraphWidget *w = m_panel->graphWidget();
        const auto deepest = rectNamed(w, QString("frame11_") + QString(60, 'x'), 12);
        QVERIFY(deepest);
        QTest::mouseClick(w, Qt::LeftButton, {}, w->rectOf(*deepest).center().toPoint());
        QCOMPARE(w->focus(), deepest->node);
        QVERIFY(m_panel->breadcrumbText().count(QStringLiteral(" › ")) == 12);
        auto *crumb = m_panel->findChild<QLabel *>(QStringLiteral("FlameBreadcrumb"));
        QVERIFY(crumb);
        QVERIFY(crumb->text().contains(QStringLiteral("…")));
        QVERIFY(!crumb->text().contains(QString(60, 'x')));   // names elided
        QVERIFY(crumb->toolTip().contains(QString("frame5_") + QString(60, 'x')));
        QVERIFY(crumb->minimumSizeHint().width() <= m_panel->width());
        QVERIFY(m_panel->minimumSizeHint().width() <= m_panel->width());
    }

    void searchHighlights()
    {
        views::FlameGraphWidget *w = m_panel->graphWidget();
        QSignalSpy changed(w, &views::FlameGraphWidget::searchChanged);
        QTest::keyClicks(m_panel->searchBox(), "H");
        QVERIFY(changed.count() > 0);
        // h under main > f, under f, and alone: 20 + 10 + 5 us.
        QCOMPARE(w->matchCount(), 3);
        QCOMPARE(w->matchedTime(), 35 * kUs);
        int drawnMatches = 0;
        for (const views::FlameRect &r : w->frameRects())
            drawnMatches += w->isMatch(r.node);
        QCOMPARE(drawnMatches, 3);
        const QImage image = w->grab().toImage();
        const auto h = rectNamed(w, "h", 1);
        QVERIFY(h);
        // A matching frame is painted in the highlight colour.
        QCOMPARE(image.pixelColor(w->rectOf(*h).topLeft().toPoint() + QPoint(1, 1)).rgb(),
                 QColor(0xdb, 0x27, 0x77).rgb());
        m_panel->searchBox()->clear();
        QCOMPARE(w->matchCount(), 0);
    }

    // A record_function range R starting inside the short __enter__ frame E and outliving it
    // (main 0-100, E 10-20, R 15-90, K 30-60 under R) is drawn under main, 70 of main's 100 us
    // wide, and a search for its kernel finds K's 30 us, not 0.
    void rangeStartingInsideAShortFrame()
    {
        m_trace = testsupport::loadText(testsupport::kRangeInsideShortFrame);
        QVERIFY(m_trace);
        m_panel->setAnalyses(std::make_shared<core::analysis::AnalysisCache>(m_trace));
        QVERIFY(waitComputed());
        views::FlameGraphWidget *w = m_panel->graphWidget();
        const auto main = rectNamed(w, "main", 1);
        const auto range = rectNamed(w, "R", 2);
        QVERIFY(main && range);
        QVERIFY(std::abs(range->w - main->w * 0.70) < 1e-6);
        QVERIFY(rectNamed(w, "K", 3));
        QTest::keyClicks(m_panel->searchBox(), "K");
        QCOMPARE(w->matchCount(), 1);
        QCOMPARE(w->matchedTime(), 30 * kUs);
    }

    void selfTimeAndScopes()
    {
        m_panel->setMetric(views::FlameGraphPanel::Metric::Self);
        QVERIFY(waitComputed());
        views::FlameGraphWidget *w = m_panel->graphWidget();
        QVERIFY(w->tree()->inverted);
        const auto h = rectNamed(w, "h", 1);
        QVERIFY(h);
        QCOMPARE(h->w, w->width() * 35.0 / 205.0);

        // All instances of the selected slice's name.
        m_panel->setMetric(views::FlameGraphPanel::Metric::Wall);
        QVERIFY(waitComputed());
        views::TimelineState state;
        m_panel->setTimelineState(&state);
        m_panel->setScope(views::FlameGraphPanel::Scope::Name);
        QVERIFY(waitComputed());
        QVERIFY(m_panel->statusText().contains("Select a slice"));
        std::optional<core::SliceRef> f;
        for (uint32_t t = 0; t < m_trace->tracks.size() && !f; ++t) {
            for (uint32_t r = 0; r < m_trace->tracks[t].rows.size() && !f; ++r) {
                for (uint32_t i = 0; i < m_trace->tracks[t].rows[r].size(); ++i) {
                    if (m_trace->name({t, r, i}) == "f") {
                        f = core::SliceRef{t, r, i};
                        break;
                    }
                }
            }
        }
        QVERIFY(f);
        QSignalSpy spy(m_panel.get(), &views::FlameGraphPanel::computed);
        state.selectSlice(f);
        QVERIFY(spy.count() > 0 || spy.wait(5000));
        QCOMPARE(w->tree()->nodes.front().wall, 100 * kUs);
        QVERIFY(m_panel->statusText().contains("all f"));
        m_panel->setTimelineState(nullptr);
    }

    void differential()
    {
        const auto slower = testsupport::loadText(slowerTrace());
        QVERIFY(slower);
        m_panel->showDifferential(m_trace, slower);
        QVERIFY(waitComputed());
        views::FlameGraphWidget *w = m_panel->graphWidget();
        QVERIFY(w->tree()->differential);
        const auto main = rectNamed(w, "main", 1);
        QVERIFY(main);
        const views::FlameTree::SideWalls n = w->tree()->sidesOf(main->node);
        QCOMPARE(n.a, 160 * kUs);
        QCOMPARE(n.b, 180 * kUs);
        QVERIFY(w->toolTipFor(main->node).contains("+20"));
        // Slower in B: painted red-ish.
        const QImage image = w->grab().toImage();
        const QColor c = image.pixelColor(w->rectOf(*main).topLeft().toPoint() + QPoint(1, 1));
        QVERIFY(c.red() > c.blue() + 20);
    }

    // The comparison workspace's "Flame graph diff" tab computes A vs B when shown.
    void compareWorkspaceTab()
    {
        const auto slower = testsupport::loadText(slowerTrace());
        QVERIFY(slower);
        views::CompareWorkspace workspace;
        workspace.resize(1400, 900);
        workspace.show();
        QVERIFY(QTest::qWaitForWindowExposed(&workspace));
        workspace.setTraces(m_trace, "A", slower, "B");
        views::FlameGraphPanel *diff = workspace.flameDiff();
        QVERIFY(diff);
        QTabWidget *tabs = nullptr;
        for (QTabWidget *t : workspace.findChildren<QTabWidget *>()) {
            if (t->indexOf(diff) >= 0)
                tabs = t;
        }
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(tabs->indexOf(diff)), QString("Flame graph diff"));
        QVERIFY(!diff->graphWidget()->tree() || !diff->graphWidget()->tree()->differential);
        QSignalSpy spy(diff, &views::FlameGraphPanel::computed);
        tabs->setCurrentWidget(diff);
        QTRY_VERIFY(spy.count() > 0 && !diff->isComputing());
        QVERIFY(diff->graphWidget()->tree()->differential);
        QCOMPARE(diff->graphWidget()->tree()->sidesOf(0).a, 205 * kUs);
        QCOMPARE(diff->graphWidget()->tree()->sidesOf(0).b, 225 * kUs);
    }
};

QTEST_MAIN(TestFlameGraphView)
#include "tst_flamegraphview.moc"
