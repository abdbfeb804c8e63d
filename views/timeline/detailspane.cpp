#include "views/timeline/detailspane.h"

#include "core/analysis/memoryaccess.h"
#include "core/analysis/opnames.h"
#include "core/model/kindlabel.h"

#include "views/common/namecolumn.h"
#include "views/common/qtconvert.h"
#include "views/timeline/flowlookup.h"
#include "views/timeline/summarytablemodel.h"
#include "views/timeline/timelinestate.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableView>
#include <QTextEdit>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace {

QString argText(const core::Trace &trace, const core::ArgValue &v)
{
    switch (v.type) {
    case core::ArgType::Int: return QString::number(v.i);
    case core::ArgType::UInt: return QString::number(v.u);
    case core::ArgType::Double: return QString::number(v.d, 'g', 10);
    case core::ArgType::String: return toQString(v.s);
    case core::ArgType::StringRef: return toQString(trace.string(v.str));
    case core::ArgType::Bytes: return QObject::tr("<%1 bytes>").arg(v.s.size());
    case core::ArgType::Bool: return v.i ? QStringLiteral("true") : QStringLiteral("false");
    }
    return {};
}

// A stat as the details show it: a known serialized message decoded, the rest as they are.
QString statText(const core::Trace &trace, const core::ArgValue &v)
{
    if (v.type == core::ArgType::Bytes
        && trace.string(v.key) == core::analysis::kMemoryAccessBreakdownStat) {
        if (const auto accesses = core::analysis::decodeMemoryAccessBreakdown(v.s))
            return toQString(core::analysis::describeMemoryAccess(*accesses));
    }
    return argText(trace, v);
}

QString where(const core::Trace &trace, core::SliceRef s)
{
    const core::Track &track = trace.tracks[s.track];
    return QStringLiteral("%1 (%2) at %3")
        .arg(toQString(core::kindLabel(trace, trace.kind(s))), toQString(trace.string(track.name)),
             timestampText(trace.start(s) - trace.begin));
}

void addRow(QString &html, const QString &key, const QString &value)
{
    html += QStringLiteral("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
}

} // namespace

DetailsPane::DetailsPane(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("DetailsPane"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_pages = new QStackedWidget;
    layout->addWidget(m_pages);

    m_empty = new QLabel(tr("Click a slice or drag across tracks to see details."));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_pages->addWidget(m_empty);

    m_slice = new QTextEdit;
    m_slice->setObjectName(QStringLiteral("SliceDetails"));
    m_slice->setReadOnly(true);
    auto *slicePage = new QWidget;
    auto *sliceLayout = new QVBoxLayout(slicePage);
    sliceLayout->setContentsMargins(0, 0, 0, 0);
    sliceLayout->addWidget(m_slice, 1);
    // One above the other: side by side they set the pane's width past its default and cut
    // the analysis tabs beside it.
    auto *sliceButtons = new QVBoxLayout;
    auto request = [this](QPushButton *button, SelectionAnalysis what) {
        connect(button, &QPushButton::clicked, this,
                [this, what] { emit analysisRequested(what); });
        return button;
    };
    sliceButtons->addWidget(request(new QPushButton(tr("Flame graph of track")),
                                    SelectionAnalysis::TrackFlameGraph),
                            0, Qt::AlignLeft);
    m_nameFlame = request(new QPushButton, SelectionAnalysis::NameFlameGraph);
    m_nameFlame->setObjectName(QStringLiteral("NameFlameGraph"));
    sliceButtons->addWidget(m_nameFlame, 0, Qt::AlignLeft);
    m_graph = new QPushButton(tr("Show in Graph Viewer"));
    m_graph->setObjectName(QStringLiteral("ShowInGraphViewer"));
    connect(m_graph, &QPushButton::clicked, this,
            [this] { emit graphRequested(m_graphOp, m_graphProgram); });
    sliceButtons->addWidget(m_graph, 0, Qt::AlignLeft);
    sliceLayout->addLayout(sliceButtons);
    m_pages->addWidget(slicePage);

    auto *area = new QWidget;
    auto *areaLayout = new QVBoxLayout(area);
    areaLayout->setContentsMargins(0, 0, 0, 0);
    // The heading on its own line, wrapping: beside the buttons its length set the pane's
    // minimum width and widened the Details dock on every area selection.
    m_areaLabel = new QLabel;
    m_areaLabel->setObjectName(QStringLiteral("AreaHeading"));
    m_areaLabel->setWordWrap(true);
    m_areaLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    areaLayout->addWidget(m_areaLabel);
    auto *top = new QHBoxLayout;
    top->addWidget(request(new QPushButton(tr("Flame graph")), SelectionAnalysis::AreaFlameGraph));
    top->addWidget(request(new QPushButton(tr("Pivot")), SelectionAnalysis::AreaPivot));
    auto *copy = new QPushButton(tr("Copy as CSV"));
    copy->setObjectName(QStringLiteral("CopyCsv"));
    connect(copy, &QPushButton::clicked, this, &DetailsPane::copyCsv);
    top->addWidget(copy);
    top->addStretch(1);
    areaLayout->addLayout(top);
    m_model = new SummaryTableModel(this);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("AreaSummary"));
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SummaryTableModel::InArea, Qt::DescendingOrder);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // Number columns as wide as their longest likely text; the names take the rest.
    QHeaderView *header = m_table->horizontalHeader();
    const int numberWidth =
        m_table->fontMetrics().horizontalAdvance(QStringLiteral("999.99 ms")) + 16;
    for (int c = SummaryTableModel::Occurrences; c < SummaryTableModel::ColumnCount; ++c)
        header->resizeSection(c, numberWidth);
    giveNameColumnTheRoom(m_table, SummaryTableModel::Name);
    m_table->setWordWrap(false);   // one line per name, elided in the middle
    // The table scrolls sideways in a narrow pane rather than widening the pane's dock (which
    // squeezed the analysis tabs beside it to "Ove...").
    m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    areaLayout->addWidget(m_table);
    m_pages->addWidget(area);
}

DetailsPane::~DetailsPane() = default;

int DetailsPane::areaSummaryWidth() const
{
    const QHeaderView *header = m_table->horizontalHeader();
    int width = 240;   // giveNameColumnTheRoom's readable name
    for (int c = SummaryTableModel::Occurrences; c < SummaryTableModel::ColumnCount; ++c)
        width += header->sectionSize(c);
    return width + m_table->verticalScrollBar()->sizeHint().width() + 2 * m_table->frameWidth()
           + 16;
}

void DetailsPane::setTrace(core::TracePtr trace)
{
    m_job.stop();
    m_pending = false;
    m_trace = std::move(trace);
    m_model->setSummary(m_trace, {});
    refresh();
}

void DetailsPane::setState(TimelineState *state)
{
    if (m_state)
        m_state->disconnect(this);
    m_state = state;
    if (state) {
        connect(state, &TimelineState::selectionChanged, this, &DetailsPane::refresh);
        connect(state, &TimelineState::highlightsChanged, this, &DetailsPane::refresh);
    }
    refresh();
}

QAbstractItemModel *DetailsPane::tableModel() const
{
    return m_model;
}

QString DetailsPane::sliceText() const
{
    return m_pages->currentIndex() == 1 ? m_slice->toPlainText() : QString();
}

QString DetailsPane::areaText() const
{
    return m_areaLabel->text();
}

QString DetailsPane::csv() const
{
    return summaryCsv(*m_model);
}

void DetailsPane::copyCsv()
{
    QApplication::clipboard()->setText(csv());
}

void DetailsPane::refresh()
{
    if (!m_trace || !m_state) {
        m_pages->setCurrentWidget(m_empty);
        return;
    }
    if (const auto &s = m_state->selectedSlice(); s && m_trace->valid(*s))
        showSlice(*s);
    else if (m_state->area().valid())
        showArea();
    else if (!m_state->highlights().empty())
        showOccurrences();
    else
        m_pages->setCurrentWidget(m_empty);
}

void DetailsPane::showOccurrences()
{
    const TimelineState::Highlights h = m_state->highlights();
    m_areaLabel->setText(tr("%1: %2 occurrences · computing…")
                             .arg(h.label, countText(h.total)));
    m_pages->setCurrentIndex(2);
    m_pending = true;
    core::TracePtr trace = m_trace;
    auto refs = h.refs;
    m_job.run<std::vector<core::NameSummary>>(
        this,
        [trace, refs](core::CancelToken cancel) {
            return core::summarizeSlices(*trace, *refs, cancel);
        },
        [this, trace, h](std::vector<core::NameSummary> rows) {
            if (trace != m_trace)
                return;
            m_pending = false;
            // Grouped by slice name: for an HLO op, the kernels that implement it.
            QString text = tr("%1: %2 occurrences as %3 names")
                               .arg(h.label, countText(h.total))
                               .arg(rows.size());
            if (h.total > h.refs->size())
                text += tr(" (the first %1 listed)").arg(countText(h.refs->size()));
            m_areaLabel->setText(text);
            m_model->setSummary(trace, std::move(rows));
            emit summaryReady();
        });
}

void DetailsPane::showSlice(core::SliceRef s)
{
    m_job.stop();
    m_pending = false;
    const core::Trace &trace = *m_trace;
    const core::Track &track = trace.tracks[s.track];
    const core::Plane &plane = trace.planes[track.plane];
    const core::EventKind &kind = trace.kind(s);
    const std::string_view label = core::kindLabel(trace, kind);
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(toQString(label).toHtmlEscaped());
    if (label.size() != trace.name(s).size())
        addRow(html, tr("HLO"), toQString(trace.name(s)));
    else if (kind.displayName != core::kEmptyString && kind.displayName != kind.name)
        addRow(html, tr("Display name"), toQString(trace.string(kind.displayName)));
    if (kind.category != core::kEmptyString)
        addRow(html, tr("Category"), toQString(trace.string(kind.category)));
    addRow(html, tr("Track"), toQString(trace.string(track.name)));
    addRow(html, tr("Plane"), toQString(trace.string(plane.name)));
    if (plane.host != core::kEmptyString)
        addRow(html, tr("Host"), toQString(trace.string(plane.host)));
    addRow(html, tr("Start"), timestampText(trace.start(s) - trace.begin));
    addRow(html, tr("Duration"), durationText(trace.duration(s)));
    addRow(html, tr("Self time"), durationText(core::selfTime(trace, s)));
    html += QStringLiteral("</table>");

    QString args;
    trace.forEachArg(s, [&](const core::ArgValue &v) {
        addRow(args, toQString(trace.string(v.key)), statText(trace, v));
    });
    if (!args.isEmpty())
        html += tr("<h4>Arguments</h4>") + QStringLiteral("<table>") + args
                + QStringLiteral("</table>");

    QString flows;
    for (const core::Flow &f : FlowLookup::flowsOf(m_trace, s)) {
        if (f.from == s && trace.valid(f.to))
            addRow(flows, tr("Flow out"), tr("to %1").arg(where(trace, f.to)));
        else if (f.to == s && trace.valid(f.from))
            addRow(flows, tr("Flow in"), tr("from %1").arg(where(trace, f.from)));
    }
    if (!flows.isEmpty())
        html += tr("<h4>Flows</h4>") + QStringLiteral("<table>") + flows
                + QStringLiteral("</table>");
    m_slice->setHtml(html);
    // A short label: a whole HLO text here set the pane's minimum width, widened the Details
    // dock and squeezed the analysis tabs to "Overv..."; the tooltip has the whole name.
    m_nameFlame->setText(tr("Flame graph of all %1")
                             .arg(fontMetrics().elidedText(toQString(label),
                                                           Qt::ElideMiddle, 120)));
    m_nameFlame->setToolTip(tr("Flame graph of every %1").arg(toQString(label)));
    // An XLA op (a TPU op line's event, or a GPU kernel naming its HLO op) has a graph.
    const int64_t program = trace.side(s, core::SideColumn::ProgramId);
    const int64_t hloOp = trace.side(s, core::SideColumn::HloOp);
    m_graphOp.clear();
    m_graphProgram.clear();
    if (hloOp != core::kNoValue)
        m_graphOp = toQString(core::analysis::innermostHloOp(trace.string(core::StringId(hloOp))));
    else if (program != core::kNoValue && plane.kind == core::PlaneKind::Device)
        m_graphOp = toQString(label);
    if (!m_graphOp.isEmpty() && program != core::kNoValue)
        m_graphProgram = QString::number(uint64_t(program));
    m_graph->setVisible(!m_graphOp.isEmpty());
    m_graph->setToolTip(tr("The HLO graph around %1").arg(m_graphOp));
    m_pages->setCurrentIndex(1);
}

void DetailsPane::showArea()
{
    const AreaRange area = m_state->area();
    m_areaLabel->setText(tr("Area: %1 across %2 tracks · computing…")
                             .arg(durationText(area.time.duration()))
                             .arg(area.tracks.size()));
    m_pages->setCurrentIndex(2);
    m_pending = true;
    core::TracePtr trace = m_trace;
    core::AreaSelection selection{area.tracks, area.time.t0, area.time.t1};
    m_job.run<std::vector<core::NameSummary>>(
        this,
        [trace, selection](core::CancelToken cancel) {
            return core::summarizeArea(*trace, selection, cancel);
        },
        [this, trace, area](std::vector<core::NameSummary> rows) {
            if (trace != m_trace)
                return;
            m_pending = false;
            uint64_t count = 0;
            for (const auto &r : rows)
                count += r.occurrences;
            m_areaLabel->setText(tr("Area: %1 across %2 tracks · %3 slices · %4 names")
                                     .arg(durationText(area.time.duration()))
                                     .arg(area.tracks.size())
                                     .arg(countText(count))
                                     .arg(rows.size()));
            m_model->setSummary(trace, std::move(rows));
            emit summaryReady();
        });
}

} // namespace tracedesk::views
