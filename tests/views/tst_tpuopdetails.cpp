// A TPU XLA op selected on the timeline: the Details pane is titled by the op's name with the
// HLO instruction in a row of its own, and its memory_access_breakdown reads as accesses. The
// fixture's `%copy-done = ...` op writes 5,368,709,120 bytes (5 GiB) to HBM (memory space 1),
// as its serialized breakdown in the raw file says.

#include "../core/support/kinetofixtures.h"

#include "core/io/traceloader.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/timelinestate.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace tracedesk;

namespace {

const QString kTpu =
    QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";

} // namespace

class TstTpuOpDetails : public QObject
{
    Q_OBJECT

private slots:
    void titledByOpName()
    {
        TRACEDESK_REQUIRE_FIXTURE(kTpu);
        auto loaded = core::loadTrace(kTpu.toStdString());
        QVERIFY(loaded);
        core::TracePtr trace = loaded.value();
        std::optional<core::SliceRef> copyDone;
        for (uint32_t t = 0; t < trace->tracks.size() && !copyDone; ++t) {
            const core::Track &track = trace->tracks[t];
            for (uint32_t r = 0; r < track.rows.size() && !copyDone; ++r) {
                for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                    const core::SliceRef s{t, r, i};
                    if (trace->name(s).starts_with("%copy-done = ")) {
                        copyDone = s;
                        break;
                    }
                }
            }
        }
        QVERIFY(copyDone);

        views::TimelineState state;
        views::DetailsPane details;
        details.resize(600, 800);
        details.setTrace(trace);
        details.setState(&state);
        details.show();
        state.selectSlice(*copyDone);
        const QStringList lines = details.sliceText().split('\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.isEmpty());
        QCOMPARE(lines.first().trimmed(), QStringLiteral("copy-done"));
        const QString text = details.sliceText().simplified();
        QVERIFY2(text.contains("HLO %copy-done = f32[5,1024,1024,256]"), qPrintable(text));
        QVERIFY2(text.contains("memory_access_breakdown write HBM 5.0 GiB"), qPrintable(text));
        QVERIFY(!text.contains("bytes>"));

        // An XLA op has a graph: the button names its op and the program the event records.
        auto *graph = details.findChild<QPushButton *>(QStringLiteral("ShowInGraphViewer"));
        QVERIFY(graph);
        QVERIFY(graph->isVisibleTo(&details));
        QSignalSpy requested(&details, &views::DetailsPane::graphRequested);
        graph->click();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.front().at(0).toString(), QStringLiteral("copy-done"));
        const QString program = requested.front().at(1).toString();
        QVERIFY2(text.contains(QStringLiteral("program_id ") + program), qPrintable(text));

        // A host event is no XLA op: no graph.
        for (uint32_t t = 0; t < trace->tracks.size(); ++t) {
            const core::Track &track = trace->tracks[t];
            if (trace->planes[track.plane].kind == core::PlaneKind::Device || track.rows.empty()
                || track.rows[0].size() == 0)
                continue;
            state.selectSlice(core::SliceRef{t, 0, 0});
            QVERIFY(!graph->isVisibleTo(&details));
            break;
        }
    }
};

QTEST_MAIN(TstTpuOpDetails)
#include "tst_tpuopdetails.moc"
