#include "views/flamegraph/flamegraphpanel.h"

#include "views/common/qtconvert.h"
#include "views/flamegraph/flamegraphwidget.h"
#include "views/flamegraph/flametree.h"
#include "views/timeline/timelinestate.h"

#include "core/analysis/pytorch/deviceflamegraph.h"
#include "core/query/framecalls.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace {

struct FlameOutcome
{
    QString error; // empty on success
    bool cancelled = false;
    std::shared_ptr<const core::FlameGraph> topDown;
    std::shared_ptr<const FlameTree> tree;
    QString what; // the scope, for the status line
};

QTreeWidget *makeCallsTable(const QString &first)
{
    auto *table = new QTreeWidget;
    table->setRootIsDecorated(false);
    table->setUniformRowHeights(true);
    table->setAlternatingRowColors(true);
    table->setHeaderLabels({first, QObject::tr("Total"), QObject::tr("Count")});
    table->header()->setStretchLastSection(false);
    table->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    table->setSortingEnabled(false);
    return table;
}

void fillCalls(QTreeWidget *table, const std::vector<core::FrameEdge> &edges,
               const QString &rootLabel)
{
    table->clear();
    for (const core::FrameEdge &e : edges) {
        auto *item = new QTreeWidgetItem({e.name.empty() ? rootLabel : toQString(e.name),
                                          durationText(e.wall), countText(e.count)});
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(0, item->text(0));
        table->addTopLevelItem(item);
    }
}

// The drawn tree of a top-down graph, holding the graph's names; the graph's nodes go with it.
// The tree's nodes answer for callers and callees (frameCallsIn), so no second copy is kept.
std::shared_ptr<const FlameTree> treeOwningNames(core::FlameGraph graph)
{
    auto names = std::make_shared<const std::vector<std::string>>(std::move(graph.names));
    // fromGraph reads names only through the tree's own pointer.
    return std::make_shared<const FlameTree>(FlameTree::fromGraph(graph, names));
}

} // namespace

FlameGraphPanel::FlameGraphPanel(QWidget *parent)
    : QWidget(parent)
    , m_scope(new QComboBox)
    , m_metric(new QComboBox)
    , m_search(new QLineEdit)
    , m_matches(new QLabel)
    , m_status(new QLabel)
    , m_breadcrumb(new QLabel)
    , m_graph(new FlameGraphWidget)
    , m_frameTitle(new QLabel)
    , m_callers(makeCallsTable(tr("Caller")))
    , m_callees(makeCallsTable(tr("Callee")))
{
    // A flame graph of every slice frees large scratch: return it once done.
    m_job.setReleaseMemoryAfterRun(true);
    m_scope->setObjectName(QStringLiteral("flameScope"));
    m_scope->addItem(tr("Whole trace"), int(Scope::WholeTrace));
    m_scope->addItem(tr("Area selection"), int(Scope::Area));
    m_scope->addItem(tr("Track of selected slice"), int(Scope::Track));
    m_scope->addItem(tr("All instances of selected name"), int(Scope::Name));
    m_metric->setObjectName(QStringLiteral("flameMetric"));
    m_metric->addItem(tr("Wall time (callees below)"), int(Metric::Wall));
    m_metric->addItem(tr("Self time (callers below)"), int(Metric::Self));
    m_search->setObjectName(QStringLiteral("flameSearch"));
    m_search->setPlaceholderText(tr("Highlight frames…"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaximumWidth(260);
    connect(m_scope, &QComboBox::activated, this, &FlameGraphPanel::recompute);
    connect(m_metric, &QComboBox::activated, this, &FlameGraphPanel::recompute);
    connect(m_search, &QLineEdit::textChanged, m_graph, &FlameGraphWidget::setSearch);
    connect(m_graph, &FlameGraphWidget::searchChanged, this, &FlameGraphPanel::updateSearchLabel);
    connect(m_graph, &FlameGraphWidget::focusChanged, this, &FlameGraphPanel::updateBreadcrumb);
    connect(m_graph, &FlameGraphWidget::frameClicked, this,
            [this](quint32 node) { showCalls(node); });
    m_breadcrumb->setObjectName(QStringLiteral("FlameBreadcrumb"));
    m_breadcrumb->setTextFormat(Qt::RichText);
    // Never wider than the panel: the caller / callee pane beside the graph stays on screen.
    m_breadcrumb->setWordWrap(true);
    m_breadcrumb->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_breadcrumb->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    connect(m_breadcrumb, &QLabel::linkActivated, this, [this](const QString &link) {
        m_graph->zoomTo(link.toUInt());
        m_graph->setFocus();
    });

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Of")));
    bar->addWidget(m_scope);
    bar->addWidget(new QLabel(tr("Width")));
    bar->addWidget(m_metric);
    bar->addSpacing(8);
    bar->addWidget(m_search);
    bar->addWidget(m_matches);
    // The status can be long (a differential graph says how it reads): it takes the room left
    // and never widens the panel; the whole text is in its tooltip.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_status, 1);

    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_graph);

    auto *side = new QWidget;
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    m_frameTitle->setWordWrap(true);
    m_frameTitle->setText(tr("Click a frame for its callers and callees."));
    sideLayout->addWidget(m_frameTitle);
    sideLayout->addWidget(m_callers, 1);
    sideLayout->addWidget(m_callees, 1);

    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_breadcrumb);
    layout->addWidget(split, 1);
    m_status->setText(tr("No trace"));
    updateBreadcrumb();
}

FlameGraphPanel::~FlameGraphPanel() = default;

void FlameGraphPanel::setAnalyses(core::analysis::AnalysisCachePtr cache)
{
    m_cache = std::move(cache);
    // GPU time by operator exists for PyTorch traces only.
    const bool pytorch = m_cache && m_cache->trace().info.run.framework == "pytorch";
    const int gpu = m_metric->findData(int(Metric::GpuTime));
    if (pytorch && gpu < 0)
        m_metric->addItem(tr("GPU time by operator (PyTorch)"), int(Metric::GpuTime));
    else if (!pytorch && gpu >= 0)
        m_metric->removeItem(gpu);
    m_scope->setEnabled(true);
    m_metric->setEnabled(true);
    recompute();
}

void FlameGraphPanel::setTimelineState(TimelineState *state)
{
    if (m_state)
        disconnect(m_state, nullptr, this, nullptr);
    m_state = state;
    if (state) {
        connect(state, &TimelineState::selectionChanged, this, [this] {
            if (m_scope->isEnabled() && scope() != Scope::WholeTrace)
                recompute();
        });
    }
}

void FlameGraphPanel::setScope(Scope scope)
{
    m_scope->setCurrentIndex(m_scope->findData(int(scope)));
    m_scope->setEnabled(true);
    recompute();
}

FlameGraphPanel::Scope FlameGraphPanel::scope() const
{
    return Scope(m_scope->currentData().toInt());
}

void FlameGraphPanel::setMetric(Metric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(int(metric)));
    if (m_scope->isEnabled())
        recompute();
}

void FlameGraphPanel::recompute()
{
    if (!m_cache) {
        m_job.stop();
        m_computing = false;
        deliver(nullptr, nullptr, tr("No trace"));
        return;
    }
    if (Metric(m_metric->currentData().toInt()) == Metric::GpuTime) {
        recomputeGpuTime();
        return;
    }
    const core::TracePtr trace = m_cache->tracePtr();
    core::FlameScope scope;
    QString what = tr("whole trace");
    const Scope kind = this->scope();
    if (kind != Scope::WholeTrace) {
        const bool area = m_state && m_state->area().valid();
        const auto slice = m_state ? m_state->selectedSlice() : std::nullopt;
        if (kind == Scope::Area && !area) {
            m_job.stop();
            deliver(nullptr, nullptr, tr("Select an area on the timeline"));
            return;
        }
        if (kind != Scope::Area && (!slice || !trace->valid(*slice))) {
            m_job.stop();
            deliver(nullptr, nullptr, tr("Select a slice on the timeline"));
            return;
        }
        if (kind == Scope::Area) {
            scope.tracks = m_state->area().tracks;
            scope.t0 = m_state->area().time.t0;
            scope.t1 = m_state->area().time.t1;
            what = tr("area selection");
        } else if (kind == Scope::Track) {
            scope.tracks = {slice->track};
            what = tr("track %1").arg(toQString(trace->string(trace->tracks[slice->track].name)));
        } else {
            scope.rootName = trace->kind(*slice).name;
            // A name on the host and on a device (PyTorch's ProfilerStep#N, a GPU-side
            // annotation) is two things: the graph takes the instances on the selected
            // slice's side only.
            const bool device = trace->planes[trace->tracks[slice->track].plane].kind
                                == core::PlaneKind::Device;
            for (uint32_t t = 0; t < trace->tracks.size(); ++t) {
                const bool onDevice =
                    trace->planes[trace->tracks[t].plane].kind == core::PlaneKind::Device;
                if (onDevice == device)
                    scope.tracks.push_back(t);
            }
            what = (device ? tr("all %1 on devices") : tr("all %1"))
                       .arg(toQString(trace->name(*slice)));
        }
    }
    const bool inverted = Metric(m_metric->currentData().toInt()) == Metric::Self;
    m_computing = true;
    m_status->setText(tr("Computing…"));
    const std::atomic<bool> *cancel = m_job.cancelFlag();
    m_job.run<FlameOutcome>(
        this,
        [trace, scope, inverted, cancel, what] {
            FlameOutcome out;
            auto built = core::buildFlameGraph(*trace, scope, cancel);
            if (!built) {
                out.cancelled = built.isCancelled();
                out.error = QString::fromStdString(built.message());
                return out;
            }
            if (!inverted) {
                out.tree = treeOwningNames(std::move(built).value());
                out.what = what;
                return out;
            }
            auto topDown = std::make_shared<const core::FlameGraph>(std::move(built).value());
            // The inverted graph keeps the top-down one's names and their indices; the
            // top-down graph stays for the callers and callees of a frame.
            const FlameTree::Names names(topDown, &topDown->names);
            out.tree = std::make_shared<const FlameTree>(
                FlameTree::fromGraph(core::invertFlameGraph(*topDown), names));
            out.topDown = std::move(topDown);
            out.what = what;
            return out;
        },
        [this](FlameOutcome out) {
            if (out.cancelled)
                return;
            if (!out.error.isEmpty()) {
                deliver(nullptr, nullptr, out.error);
                return;
            }
            deliver(std::move(out.topDown), std::move(out.tree), out.what);
        });
}

void FlameGraphPanel::recomputeGpuTime()
{
    namespace pt = core::analysis::pytorch;
    m_computing = true;
    m_status->setText(tr("Computing…"));
    const core::analysis::AnalysisCachePtr cache = m_cache;
    m_job.run<FlameOutcome>(
        this,
        [cache] {
            FlameOutcome out;
            const auto tree = pt::operatorTree(*cache);
            const auto capture = pt::graphCaptureAttribution(*cache);
            out.tree = treeOwningNames(
                pt::deviceTimeFlameGraph(cache->trace(), *tree, capture.get()));
            out.what = capture->hasCapture
                           ? tr("GPU time by operator, replayed graph kernels under the "
                                "operators that captured them")
                           : tr("GPU time by operator (the launches each operator made)");
            return out;
        },
        [this](FlameOutcome out) {
            if (out.cancelled)
                return;
            deliver(std::move(out.topDown), std::move(out.tree), out.what);
        });
}

void FlameGraphPanel::showDifferential(core::TracePtr a, core::TracePtr b)
{
    if (!a || !b)
        return;
    m_scope->setEnabled(false);
    m_metric->setEnabled(false); // a differential graph is by wall time
    m_computing = true;
    m_status->setText(tr("Computing…"));
    const std::atomic<bool> *cancel = m_job.cancelFlag();
    m_job.run<FlameOutcome>(
        this,
        [a, b, cancel] {
            FlameOutcome out;
            core::FlameScope scope;
            scope.foldNumbered = true;
            auto ga = core::buildFlameGraph(*a, scope, cancel);
            auto gb = ga ? core::buildFlameGraph(*b, scope, cancel) : ga;
            if (!ga || !gb) {
                out.cancelled = (!ga ? ga : gb).isCancelled();
                out.error = QString::fromStdString((!ga ? ga : gb).message());
                return out;
            }
            out.tree = std::make_shared<const FlameTree>(
                FlameTree::fromDiff(core::diffFlameGraphs(ga.value(), gb.value())));
            out.what = QObject::tr("A vs B: red slower in B, blue faster; numbered frames "
                                   "(ProfilerStep#N) merged as #*");
            return out;
        },
        [this](FlameOutcome out) {
            if (out.cancelled)
                return;
            deliver(nullptr, std::move(out.tree), out.error.isEmpty() ? out.what : out.error);
        });
}

void FlameGraphPanel::deliver(std::shared_ptr<const core::FlameGraph> topDown,
                              std::shared_ptr<const FlameTree> tree, const QString &what)
{
    m_computing = false;
    m_topDown = std::move(topDown);
    const bool any = tree && !tree->empty();
    const core::TimePs total = tree && !tree->nodes.empty() ? tree->nodes.front().wall : 0;
    m_graph->setTree(std::move(tree));
    m_callers->clear();
    m_callees->clear();
    m_frameTitle->setText(tr("Click a frame for its callers and callees."));
    if (any && m_graph->tree()->differential) {
        const auto [a, b] = m_graph->tree()->sidesOf(0);
        m_status->setText(tr("A %2 · B %3 · %1").arg(what, durationText(a), durationText(b)));
    } else {
        m_status->setText(any ? tr("%1 · %2").arg(what, durationText(total)) : what);
    }
    m_status->setToolTip(m_status->text());
    emit computed();
}

void FlameGraphPanel::showCalls(uint32_t node)
{
    const auto &tree = m_graph->tree();
    if (!tree || node >= tree->nodes.size())
        return;
    // A top-down tree answers from its own nodes; an inverted one from the graph it inverts.
    const bool topDownTree = !tree->inverted && !tree->differential;
    if ((!m_topDown && !topDownTree) || node == 0) {
        m_callers->clear();
        m_callees->clear();
        m_frameTitle->setText(node == 0 ? tr("Click a frame for its callers and callees.")
                                        : tree->nameOf(node));
        return;
    }
    const QString name = tree->nameOf(node);
    const core::FrameCalls calls =
        m_topDown ? core::frameCalls(*m_topDown, name.toStdString())
                  : core::frameCallsIn(*tree, *tree->names, name.toStdString());
    m_frameTitle->setText(tr("<b>%1</b><br>total %2 · self %3 · %4 slices")
                              .arg(name.toHtmlEscaped(), durationText(calls.wall),
                                   durationText(calls.self), countText(calls.count)));
    fillCalls(m_callers, calls.callers, tr("(top frame)"));
    fillCalls(m_callees, calls.callees, QString());
}

void FlameGraphPanel::updateBreadcrumb()
{
    const auto &tree = m_graph->tree();
    if (!tree || tree->empty()) {
        m_breadcrumb->setText(QString());
        return;
    }
    // A deep path stays one short line: long names are elided in the middle, and past six
    // frames the middle ones fold into "…" (the whole path is in the tooltip).
    constexpr int kMaxName = 40, kMaxParts = 6;
    const auto path = tree->pathTo(m_graph->focus());
    QStringList parts, full;
    for (size_t k = 0; k < path.size(); ++k) {
        const uint32_t n = path[k];
        full << tree->nameOf(n);
        if (path.size() > size_t(kMaxParts) && k >= 2 && k + 3 < path.size()) {
            if (k == 2)
                parts << QStringLiteral("…");
            continue;
        }
        QString name = tree->nameOf(n);
        if (name.size() > kMaxName)
            name = name.left(kMaxName / 2 - 1) + QStringLiteral("…") + name.right(kMaxName / 2);
        name = name.toHtmlEscaped();
        parts << (n == m_graph->focus() ? QStringLiteral("<b>%1</b>").arg(name)
                                        : QStringLiteral("<a href=\"%1\">%2</a>").arg(n).arg(name));
    }
    m_breadcrumb->setToolTip(full.join(QStringLiteral(" › ")));
    QString hint = m_graph->zoomDepth() > 0 ? tr("  (Esc: back)") : tr("  (click a frame to zoom)");
    m_breadcrumb->setText(parts.join(QStringLiteral(" › ")) + hint);
}

void FlameGraphPanel::updateSearchLabel()
{
    if (m_graph->search().isEmpty()) {
        m_matches->clear();
        return;
    }
    const auto &tree = m_graph->tree();
    const core::TimePs total = tree && !tree->nodes.empty() ? tree->nodes.front().wall : 0;
    m_matches->setText(
        tr("%1 frames · %2 (%3%)")
            .arg(m_graph->matchCount())
            .arg(durationText(m_graph->matchedTime()))
            .arg(total > 0 ? 100.0 * double(m_graph->matchedTime()) / double(total) : 0.0, 0, 'f',
                 1));
}

QString FlameGraphPanel::breadcrumbText() const
{
    const auto &tree = m_graph->tree();
    if (!tree || tree->empty())
        return {};
    QStringList parts;
    for (uint32_t n : tree->pathTo(m_graph->focus()))
        parts << tree->nameOf(n);
    return parts.join(QStringLiteral(" › "));
}

QString FlameGraphPanel::statusText() const
{
    return m_status->text();
}

} // namespace tracedesk::views
