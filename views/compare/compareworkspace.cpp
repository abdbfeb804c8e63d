#include "views/compare/compareworkspace.h"

#include "core/compare/opmatch.h"
#include "views/compare/comparecharts.h"
#include "views/compare/comparelabels.h"
#include "views/compare/opdiffmodel.h"
#include "views/compare/operatordiffmodel.h"
#include "views/flamegraph/flamegraphpanel.h"
#include "views/timeline/timelinewidget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>

namespace tracedesk::views {

using namespace core::compare;

namespace {

const char *const kSideColors[2] = {"#3a7bd5", "#e07b2a"};

CompareWorkspace::Side other(CompareWorkspace::Side side)
{
    return side == CompareWorkspace::SideA ? CompareWorkspace::SideB : CompareWorkspace::SideA;
}

QString html(const std::string &text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

} // namespace

CompareWorkspace::CompareWorkspace(QWidget *parent) : QWidget(parent)
{
    buildUi();
    clear();
}

CompareWorkspace::~CompareWorkspace()
{
    m_job.stop();
    m_occurrenceJob.stop();
}

void CompareWorkspace::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    auto *bar = new QHBoxLayout;
    auto *swapButton = new QPushButton(tr("Swap A/B"), this);
    auto *closeA = new QPushButton(tr("Close A"), this);
    auto *closeB = new QPushButton(tr("Close B"), this);
    swapButton->setObjectName(QStringLiteral("swapButton"));
    closeA->setObjectName(QStringLiteral("closeAButton"));
    closeB->setObjectName(QStringLiteral("closeBButton"));
    connect(swapButton, &QPushButton::clicked, this, &CompareWorkspace::swap);
    connect(closeA, &QPushButton::clicked, this, [this] { emit closeRequested(SideA); });
    connect(closeB, &QPushButton::clicked, this, [this] { emit closeRequested(SideB); });
    m_stepBox = new QComboBox(this);
    m_stepBox->setMinimumContentsLength(24);
    m_stepBox->setToolTip(tr("Step N of A and step N of B are drawn at the same x"));
    connect(m_stepBox, &QComboBox::activated, this, [this](int index) { setAlignStep(index); });
    m_lock = new QCheckBox(tr("Lock zoom/pan"), this);
    m_lock->setChecked(true);
    connect(m_lock, &QCheckBox::toggled, this, [this](bool on) {
        if (on)
            syncWindowFrom(SideA);
    });
    m_status = new QLabel(this);
    bar->addWidget(swapButton);
    bar->addWidget(closeA);
    bar->addWidget(closeB);
    bar->addSpacing(16);
    bar->addWidget(new QLabel(tr("Align at:"), this));
    bar->addWidget(m_stepBox);
    bar->addWidget(m_lock);
    bar->addStretch(1);
    bar->addWidget(m_status);
    layout->addLayout(bar);

    auto *main = new QSplitter(Qt::Vertical, this);
    m_timelineSplit = new QSplitter(Qt::Vertical, main);
    for (int s = 0; s < 2; ++s) {
        auto *pane = new QWidget(m_timelineSplit);
        auto *v = new QVBoxLayout(pane);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(0);
        m_headers[size_t(s)] = new QLabel(pane);
        m_headers[size_t(s)]->setTextFormat(Qt::RichText);
        m_timelines[size_t(s)] = new TimelineWidget(pane);
        v->addWidget(m_headers[size_t(s)]);
        v->addWidget(m_timelines[size_t(s)], 1);
        m_panes[size_t(s)] = pane;
        m_timelineSplit->addWidget(pane);
        TimelineWidget *timeline = m_timelines[size_t(s)];
        // Sides move on swap: look the widget up each time.
        auto sideOf = [this, timeline] { return m_timelines[0] == timeline ? SideA : SideB; };
        connect(timeline->state(), &TimelineState::viewportChanged, this,
                [this, sideOf] { syncWindowFrom(sideOf()); });
        connect(timeline->state(), &TimelineState::selectionChanged, this,
                [this, sideOf] { syncSelectionFrom(sideOf()); });
    }

    auto *bottom = new QSplitter(Qt::Horizontal, main);
    m_diffTabs = new QTabWidget(bottom);
    m_diffTabs->setTabBarAutoHide(true);
    m_diffTabs->setDocumentMode(true);
    buildOperatorPane(m_diffTabs);
    auto *diffPane = new QWidget(m_diffTabs);
    auto *dv = new QVBoxLayout(diffPane);
    dv->setContentsMargins(0, 0, 0, 0);
    auto *diffBar = new QHBoxLayout;
    m_levelBox = new QComboBox(diffPane);
    for (int l = 0; l < kOpLevelCount; ++l)
        m_levelBox->addItem(QString::fromLatin1(opLevelLabel(OpLevel(l))));
    connect(m_levelBox, &QComboBox::activated, this,
            [this](int index) { setLevel(OpLevel(index)); });
    m_filter = new QLineEdit(diffPane);
    m_filter->setPlaceholderText(tr("Filter ops"));
    m_filter->setClearButtonEnabled(true);
    auto *exportButton = new QPushButton(tr("Export CSV..."), diffPane);
    connect(exportButton, &QPushButton::clicked, this, &CompareWorkspace::exportCsv);
    diffBar->addWidget(new QLabel(tr("Level:"), diffPane));
    diffBar->addWidget(m_levelBox);
    diffBar->addWidget(m_filter, 1);
    diffBar->addWidget(exportButton);
    dv->addLayout(diffBar);

    m_model = new OpDiffModel(this);
    m_proxy = new OpDiffProxy(this);
    m_proxy->setSourceModel(m_model);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    m_table = new QTableView(diffPane);
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setColumnWidth(OpDiffModel::NameColumn, 260);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CompareWorkspace::onRowActivated);
    dv->addWidget(m_table, 1);
    m_diffTabs->addTab(diffPane, tr("Op diff"));

    auto *tabs = new QTabWidget(bottom);
    m_summary = new QTextBrowser(tabs);
    m_summary->setOpenLinks(false);
    tabs->addTab(m_summary, tr("Summary"));
    m_stepChart = new StepCompareChart(tabs);
    tabs->addTab(m_stepChart, tr("Step time"));
    auto *histPane = new QWidget(tabs);
    auto *hv = new QVBoxLayout(histPane);
    hv->setContentsMargins(0, 0, 0, 0);
    m_logAxes = new QCheckBox(tr("Log axes"), histPane);
    m_histogram = new DurationHistogram(histPane);
    connect(m_logAxes, &QCheckBox::toggled, m_histogram, &DurationHistogram::setLogAxes);
    hv->addWidget(m_logAxes);
    hv->addWidget(m_histogram, 1);
    tabs->addTab(histPane, tr("Op durations"));
    m_tabs = tabs;
    m_flameDiff = new FlameGraphPanel(tabs);
    tabs->addTab(m_flameDiff, tr("Flame graph diff"));
    connect(tabs, &QTabWidget::currentChanged, this, &CompareWorkspace::refreshFlameDiff);
    bottom->addWidget(m_diffTabs);
    bottom->addWidget(tabs);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);

    main->addWidget(m_timelineSplit);
    main->addWidget(bottom);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 2);
    m_mainSplit = main;
    // The splitters keep where the user put them, across comparisons and sessions.
    for (QSplitter *split : {m_mainSplit, m_timelineSplit}) {
        connect(split, &QSplitter::splitterMoved, this, [this, split] {
            QSettings().setValue(QStringLiteral("compare/") + split->objectName(),
                                 split->saveState());
        });
    }
    m_mainSplit->setObjectName(QStringLiteral("compareMainSplitter"));
    m_timelineSplit->setObjectName(QStringLiteral("compareTimelineSplitter"));
    layout->addWidget(main, 1);
}

void CompareWorkspace::buildOperatorPane(QTabWidget *tabs)
{
    // A tab only while two PyTorch traces are compared (showOperators); hidden until then, as a
    // child the tab widget does not hold would be drawn over the op diff.
    m_operatorPane = new QWidget(tabs);
    m_operatorPane->hide();
    auto *v = new QVBoxLayout(m_operatorPane);
    v->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    m_groupingBox = new QComboBox(m_operatorPane);
    for (int g = 0; g < kOperatorGroupingCount; ++g)
        m_groupingBox->addItem(QString::fromLatin1(operatorGroupingLabel(OperatorGrouping(g))));
    m_operatorFilter = new QLineEdit(m_operatorPane);
    m_operatorFilter->setPlaceholderText(tr("Filter operators"));
    m_operatorFilter->setClearButtonEnabled(true);
    bar->addWidget(new QLabel(tr("Group by:"), m_operatorPane));
    bar->addWidget(m_groupingBox);
    bar->addWidget(m_operatorFilter, 1);
    v->addLayout(bar);
    m_operatorMatch = new QLabel(m_operatorPane);
    m_operatorMatch->setWordWrap(true);
    v->addWidget(m_operatorMatch);

    m_operatorModel = new OperatorDiffModel(this);
    auto *proxy = new QSortFilterProxyModel(this);
    m_operatorProxy = proxy;
    proxy->setSourceModel(m_operatorModel);
    proxy->setSortRole(OperatorDiffModel::kSortRole);
    proxy->setFilterKeyColumn(OperatorDiffModel::OperatorColumn);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_operatorFilter, &QLineEdit::textChanged, proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_groupingBox, &QComboBox::activated, this, [this](int index) {
        m_operatorModel->setGrouping(OperatorGrouping(index));
    });
    m_operatorTable = new QTableView(m_operatorPane);
    m_operatorTable->setObjectName(QStringLiteral("operatorDiffTable"));
    m_operatorTable->setModel(proxy);
    m_operatorTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_operatorTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_operatorTable->verticalHeader()->hide();
    m_operatorTable->verticalHeader()->setDefaultSectionSize(
        m_operatorTable->fontMetrics().height() + 6);
    m_operatorTable->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_operatorTable->setSortingEnabled(true);
    m_operatorTable->setTextElideMode(Qt::ElideMiddle);
    m_operatorTable->setColumnWidth(OperatorDiffModel::OperatorColumn, 380);
    m_operatorTable->setColumnWidth(OperatorDiffModel::GpuWorkAColumn, 200);
    m_operatorTable->setColumnWidth(OperatorDiffModel::GpuWorkBColumn, 200);
    m_operatorTable->horizontalHeader()->setStretchLastSection(true);
    connect(m_operatorTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CompareWorkspace::onOperatorRowActivated);
    v->addWidget(m_operatorTable, 1);
}

void CompareWorkspace::showOperators()
{
    const auto pytorch = m_comparison ? m_comparison->pytorch : nullptr;
    const int index = m_diffTabs->indexOf(m_operatorPane);
    if (!pytorch) {
        if (index >= 0)
            m_diffTabs->removeTab(index);
        m_operatorPane->hide();
        m_operatorModel->setComparison(nullptr, OperatorGrouping::Name);
        return;
    }
    m_operatorModel->setComparison(pytorch, OperatorGrouping(m_groupingBox->currentIndex()));
    m_operatorMatch->setText(operatorMatchText(pytorch->match));
    if (index < 0)
        m_diffTabs->insertTab(0, m_operatorPane, tr("Operators A ↔ B"));
    m_diffTabs->setCurrentWidget(m_operatorPane);
}

QList<int> CompareWorkspace::timelineHeights() const
{
    return {m_panes[0]->height(), m_panes[1]->height()};
}

void CompareWorkspace::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_sized)
        QTimer::singleShot(0, this, &CompareWorkspace::applyDefaultSizes);
}

// By default each timeline gets a third of the window's height (the tables the rest); a place
// the user chose before wins.
void CompareWorkspace::applyDefaultSizes()
{
    if (m_sized || !isVisible())
        return;
    m_sized = true;
    QSettings settings;
    bool restored = false;
    for (QSplitter *split : {m_mainSplit, m_timelineSplit}) {
        const QVariant state = settings.value(QStringLiteral("compare/") + split->objectName());
        restored |= state.isValid() && split->restoreState(state.toByteArray());
    }
    if (restored)
        return;
    const int total = m_mainSplit->height();
    const int timelines = std::min(2 * window()->height() / 3 + 8, total - 160);
    if (timelines > 0)
        m_mainSplit->setSizes({timelines, total - timelines});
    m_timelineSplit->setSizes({timelines / 2, timelines - timelines / 2});
}

TimelineState *CompareWorkspace::state(Side side) const
{
    return m_timelines[side]->state();
}

core::TracePtr CompareWorkspace::trace(Side side) const
{
    return m_caches[side] ? m_caches[side]->tracePtr() : nullptr;
}

void CompareWorkspace::clear()
{
    m_job.stop();
    m_occurrenceJob.stop();
    m_caches = {};
    m_names = {};
    m_comparison.reset();
    m_steps[0].reset();
    m_steps[1].reset();
    m_alignment = {};
    m_highlighted.clear();
    m_computing = false;
    for (TimelineWidget *t : m_timelines)
        t->setTrace(nullptr);
    m_model->setDiff({});
    showOperators();
    m_stepChart->clear();
    m_histogram->clear();
    m_flameDiff->setAnalyses(nullptr);
    m_flameDiffStale = true;
    m_summary->setHtml(tr("<p>Drop a second trace to compare it with the current one.</p>"));
    m_stepBox->clear();
    m_status->clear();
    updateHeaders();
}

void CompareWorkspace::setTraces(core::TracePtr a, QString nameA, core::TracePtr b,
                                 QString nameB)
{
    setAnalyses(a ? std::make_shared<core::analysis::AnalysisCache>(std::move(a)) : nullptr,
                std::move(nameA),
                b ? std::make_shared<core::analysis::AnalysisCache>(std::move(b)) : nullptr,
                std::move(nameB));
}

void CompareWorkspace::setAnalyses(core::analysis::AnalysisCachePtr a, QString nameA,
                                   core::analysis::AnalysisCachePtr b, QString nameB)
{
    clear();
    m_caches = {std::move(a), std::move(b)};
    // Two files of one name (JAX writes <host>.xplane.pb) get their run folders in the labels.
    const auto firstSource = [](const core::analysis::AnalysisCachePtr &c) {
        const auto &sources = c ? c->trace().info.sources : std::vector<std::string>();
        return sources.empty() ? std::string() : sources.front();
    };
    const auto [labelA, labelB] = distinctComparisonLabels(nameA, firstSource(m_caches[0]), nameB,
                                                           firstSource(m_caches[1]));
    m_names = {QString(labelA), QString(labelB)};
    for (int s = 0; s < 2; ++s)
        m_timelines[size_t(s)]->setTrace(trace(Side(s)));
    if (m_caches[0] && m_caches[1]) {
        // Until the steps are known the trace begins share an x.
        m_alignment.anchorA = m_caches[0]->trace().begin;
        m_alignment.anchorB = m_caches[1]->trace().begin;
    }
    updateHeaders();
    applyAlignment(true);
    startComparison();
}

void CompareWorkspace::swap()
{
    if (!m_caches[0] || !m_caches[1])
        return;
    m_job.stop();
    m_occurrenceJob.stop();
    std::swap(m_caches[0], m_caches[1]);
    std::swap(m_names[0], m_names[1]);
    std::swap(m_timelines[0], m_timelines[1]);
    std::swap(m_panes[0], m_panes[1]);
    std::swap(m_headers[0], m_headers[1]);
    std::swap(m_steps[0], m_steps[1]);
    std::swap(m_alignment.anchorA, m_alignment.anchorB);
    std::swap(m_alignment.stepA, m_alignment.stepB);
    m_timelineSplit->insertWidget(0, m_panes[0]);
    m_comparison.reset();
    m_model->setDiff({});
    updateHeaders();
    startComparison();
}

void CompareWorkspace::updateHeaders()
{
    for (int s = 0; s < 2; ++s) {
        const QString label = s == 0 ? QStringLiteral("A") : QStringLiteral("B");
        const QString name = m_names[size_t(s)].isEmpty() ? tr("(none)") : m_names[size_t(s)];
        m_headers[size_t(s)]->setText(
            QStringLiteral("<b><span style='color:%1'>&#9632; %2</span></b> %3")
                .arg(QLatin1String(kSideColors[s]), label, name.toHtmlEscaped()));
    }
}

void CompareWorkspace::refreshFlameDiff()
{
    if (!m_flameDiffStale || m_tabs->currentWidget() != m_flameDiff || !m_caches[0]
        || !m_caches[1])
        return;
    m_flameDiffStale = false;
    m_flameDiff->showDifferential(m_caches[0]->tracePtr(), m_caches[1]->tracePtr());
}

void CompareWorkspace::startComparison()
{
    m_flameDiffStale = true;
    refreshFlameDiff();
    if (!m_caches[0] || !m_caches[1])
        return;
    m_computing = true;
    m_status->setText(tr("Computing..."));
    m_summary->setHtml(tr("<p>Computing the comparison...</p>"));
    auto a = m_caches[0], b = m_caches[1];
    const int pair = m_alignment.byStep && m_steps[0] && m_caches[0]
                         ? m_alignment.stepA - firstCompleteStep(m_caches[0]->trace(), *m_steps[0])
                         : 0;
    m_job.run<Result>(
        this,
        [a, b, pair] {
            Result r;
            CompareOptions options;
            options.alignStep = pair;
            r.comparison = std::make_shared<const TraceComparison>(compareTraces(*a, *b, options));
            r.stepsA = r.comparison->stepDbA;
            r.stepsB = r.comparison->stepDbB;
            return r;
        },
        [this](Result r) { applyResult(std::move(r)); });
}

void CompareWorkspace::applyResult(Result result)
{
    m_computing = false;
    m_status->clear();
    m_comparison = std::move(result.comparison);
    m_steps[0] = std::move(result.stepsA);
    m_steps[1] = std::move(result.stepsB);
    m_alignment = m_comparison->alignment;
    fillStepSelector();
    showLevel();
    showOperators();
    m_stepChart->setComparison(m_comparison->steps, m_names[0], m_names[1]);
    updateSummary();
    applyAlignment(true);
    emit comparisonReady();
}

void CompareWorkspace::fillStepSelector()
{
    m_stepBox->clear();
    if (!m_comparison || m_comparison->steps.pairs.empty()) {
        m_stepBox->addItem(tr("Trace begins (no steps)"));
        m_stepBox->setEnabled(false);
        return;
    }
    m_stepBox->setEnabled(true);
    for (const StepPair &p : m_comparison->steps.pairs) {
        m_stepBox->addItem(tr("Step %1 (A: %2, B: %3)")
                               .arg(p.index + 1)
                               .arg(QString::fromStdString(p.nameA),
                                    QString::fromStdString(p.nameB)));
    }
    const int first = firstCompleteStep(m_caches[0]->trace(), *m_steps[0]);
    m_stepBox->setCurrentIndex(std::max(0, m_alignment.stepA - first));
}

void CompareWorkspace::setAlignStep(int pair)
{
    if (!m_steps[0] || !m_steps[1] || !m_caches[0] || !m_caches[1])
        return;
    m_alignment = alignTraces(m_caches[0]->trace(), *m_steps[0], m_caches[1]->trace(),
                              *m_steps[1], pair);
    if (m_alignment.byStep && m_stepBox->count() > 0) {
        const int first = firstCompleteStep(m_caches[0]->trace(), *m_steps[0]);
        m_stepBox->setCurrentIndex(std::max(0, m_alignment.stepA - first));
    }
    applyAlignment(true);
}

void CompareWorkspace::applyAlignment(bool resetWindows)
{
    if (!m_caches[0] || !m_caches[1] || !resetWindows)
        return;
    const core::Trace &a = m_caches[0]->trace();
    core::TimePs t0 = a.begin, t1 = std::max(a.end, a.begin + 1);
    if (m_alignment.byStep && m_steps[0]) {
        // Three steps from the anchor, with a little room before it.
        const auto &steps = m_steps[0]->steps;
        const size_t first = size_t(m_alignment.stepA);
        const size_t last = std::min(steps.size(), first + 3) - 1;
        const core::TimePs end = steps[last].begin + steps[last].duration;
        const core::TimePs span = std::max<core::TimePs>(end - m_alignment.anchorA, 1);
        t0 = m_alignment.anchorA - span / 20;
        t1 = end + span / 20;
    }
    m_syncing = true;
    state(SideA)->setWindow(t0, t1);
    state(SideB)->setWindow(m_alignment.toB(t0), m_alignment.toB(t1));
    m_syncing = false;
}

bool CompareWorkspace::zoomLocked() const
{
    return m_lock->isChecked();
}

void CompareWorkspace::setZoomLocked(bool locked)
{
    m_lock->setChecked(locked);
}

void CompareWorkspace::syncWindowFrom(Side side)
{
    if (!zoomLocked() || m_syncing || !m_caches[0] || !m_caches[1])
        return;
    const TimelineState *from = state(side);
    const core::TimePs shift = side == SideA ? m_alignment.offset() : -m_alignment.offset();
    m_syncing = true;
    state(other(side))->setWindow(from->t0() + shift, from->t1() + shift);
    m_syncing = false;
}

void CompareWorkspace::syncSelectionFrom(Side side)
{
    if (m_syncing || !m_caches[0] || !m_caches[1])
        return;
    const auto &selected = state(side)->selectedSlice();
    if (!selected)
        return;
    const core::Trace &from = m_caches[side]->trace();
    const core::Trace &to = m_caches[other(side)]->trace();
    const core::TimePs start = from.start(*selected);
    const core::TimePs near = side == SideA ? m_alignment.toB(start) : m_alignment.toA(start);
    const auto match = matchingSlice(from, *selected, to, near);
    m_syncing = true;
    state(other(side))->selectSlice(match);
    m_syncing = false;
    // Filter the diff to the op the slice stands for, and show its durations.
    if (const auto key = opKeyOfSlice(from, *selected, m_level)) {
        const QString name = QString::fromStdString(key->name);
        // Filtering moves the table's current row; that must not re-select in the timelines.
        m_syncing = true;
        setFilterText(name);
        m_syncing = false;
        m_highlighted = name;
        emit opHighlighted(name);
        auto a = m_caches[0]->tracePtr(), b = m_caches[1]->tracePtr();
        const OpLevel level = m_level;
        const std::string where = key->where, op = key->name;
        m_occurrenceJob.run<Occurrences>(
            this,
            [a, b, level, op, where, name] {
                return Occurrences{name, opOccurrences(*a, level, op, where),
                                   opOccurrences(*b, level, op, where), false};
            },
            [this](Occurrences o) { applyOccurrences(std::move(o)); });
    }
}

void CompareWorkspace::setLevel(OpLevel level)
{
    m_level = level;
    if (m_levelBox->currentIndex() != int(level))
        m_levelBox->setCurrentIndex(int(level));
    showLevel();
    updateSummary();
}

void CompareWorkspace::showLevel()
{
    m_model->setDiff(m_comparison ? m_comparison->diff(m_level) : OpDiff{});
    m_table->setColumnHidden(OpDiffModel::WhereColumn, m_level != OpLevel::Framework);
}

void CompareWorkspace::setFilterText(const QString &text)
{
    m_filter->setText(text);
}

void CompareWorkspace::onRowActivated()
{
    if (m_syncing)
        return;
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const OpDiffRow *row = m_model->rowAt(m_proxy->mapToSource(current).row());
    if (row)
        highlightOp(QString::fromStdString(row->name), QString::fromStdString(row->where));
}

void CompareWorkspace::onOperatorRowActivated()
{
    const QModelIndex current = m_operatorTable->currentIndex();
    if (!current.isValid())
        return;
    const core::compare::OperatorDiffRow *row =
        m_operatorModel->rowAt(m_operatorProxy->mapToSource(current).row());
    if (!row || row->annotation)
        return;
    const std::string &b = row->opNameB.empty() ? row->opName : row->opNameB;
    highlightOperator(QString::fromStdString(row->opName), QString::fromStdString(b));
}

void CompareWorkspace::highlightOp(const QString &name, const QString &where)
{
    const std::string op = name.toStdString();
    findOccurrences(name, op, op, m_level, where.toStdString());
}

void CompareWorkspace::highlightOperator(const QString &nameA, const QString &nameB)
{
    // PyTorch operators are host events; their kernels carry no operator name of their own.
    findOccurrences(nameA, nameA.toStdString(), nameB.toStdString(), OpLevel::Framework,
                    core::compare::kWhereHost);
}

void CompareWorkspace::findOccurrences(const QString &name, const std::string &opA,
                                       const std::string &opB, OpLevel level,
                                       const std::string &where)
{
    if (!m_caches[0] || !m_caches[1])
        return;
    m_highlighted = name;
    emit opHighlighted(name);
    auto a = m_caches[0]->tracePtr(), b = m_caches[1]->tracePtr();
    m_occurrenceJob.run<Occurrences>(
        this,
        [a, b, level, opA, opB, where, name] {
            return Occurrences{name, opOccurrences(*a, level, opA, where),
                               opOccurrences(*b, level, opB, where), true};
        },
        [this](Occurrences o) { applyOccurrences(std::move(o)); });
}

void CompareWorkspace::applyOccurrences(Occurrences o)
{
    if (!m_caches[0] || !m_caches[1])
        return;
    const core::Trace &a = m_caches[0]->trace();
    const core::Trace &b = m_caches[1]->trace();
    m_histogram->setDurations(o.name, durationsOf(a, o.a), durationsOf(b, o.b), m_names[0],
                              m_names[1]);
    if (!o.select)
        return;
    // A first: revealing it may move the window, and B follows through the lock.
    for (Side side : {SideA, SideB}) {
        const core::Trace &t = side == SideA ? a : b;
        TimelineState *s = state(side);
        const auto nearest = nearestOf(t, side == SideA ? o.a : o.b, s->t0() + (s->t1() - s->t0()) / 2);
        bool revealed = false;
        m_syncing = true;
        if (nearest) {
            const core::TimePs start = t.start(*nearest);
            const bool visible = start + t.duration(*nearest) >= s->t0() && start <= s->t1();
            revealed = !visible && (side == SideA || !zoomLocked());
            if (revealed) {
                m_timelines[side]->revealSlice(*nearest);
            } else {
                s->selectSlice(nearest);
                m_timelines[side]->scrollToSlice(*nearest);
            }
        } else {
            s->clearSelection();
        }
        m_syncing = false;
        if (revealed)
            syncWindowFrom(side);   // the other window follows the reveal
    }
}

void CompareWorkspace::updateSummary()
{
    if (!m_comparison) {
        return;
    }
    const TraceComparison &c = *m_comparison;
    QString text = QStringLiteral("<p><b><span style='color:%1'>A</span></b> %2<br>"
                                  "<b><span style='color:%3'>B</span></b> %4</p><ul>")
                       .arg(QLatin1String(kSideColors[0]), m_names[0].toHtmlEscaped(),
                            QLatin1String(kSideColors[1]), m_names[1].toHtmlEscaped());
    for (const std::string &line : summaryLines(c, m_level))
        text += QStringLiteral("<li>%1</li>").arg(html(line));
    text += QStringLiteral("</ul><table cellspacing='0' cellpadding='3'>"
                           "<tr><th align='left'>Overview</th><th align='right'>A</th>"
                           "<th align='right'>B</th><th align='right'>change</th></tr>");
    for (OverviewFigure f : c.overview.figures) {
        // Rounding leftovers (a std dev of 1e-17 ms) read as zero.
        f.a = std::abs(f.a) < 1e-9 ? 0.0 : f.a;
        f.b = std::abs(f.b) < 1e-9 ? 0.0 : f.b;
        if (f.a == 0 && f.b == 0)
            continue;
        const double pct = f.a != 0 ? 100.0 * (f.b - f.a) / std::abs(f.a) : NAN;
        const bool worse = (f.b > f.a) != f.higherIsBetter && f.b != f.a;
        const QString unit = f.unit.empty() ? QString() : QStringLiteral(" ") + html(f.unit);
        text += QStringLiteral("<tr><td>%1</td><td align='right'>%2%5</td>"
                               "<td align='right'>%3%5</td>"
                               "<td align='right' style='color:%4'>%6</td></tr>")
                    .arg(html(f.label), QString::number(f.a, 'g', 4), QString::number(f.b, 'g', 4),
                         QLatin1String(f.b == f.a ? "gray" : worse ? "#d03b3b" : "#2e8b3e"), unit,
                         html(formatPercent(pct)));
    }
    text += QStringLiteral("</table>");
    m_summary->setHtml(text);
}

QString CompareWorkspace::summaryText() const
{
    return m_summary->toPlainText();
}

void CompareWorkspace::exportCsv()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export op diff"), QStringLiteral("op-diff-%1.csv").arg(opLevelName(m_level)),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(opDiffCsv(*m_proxy).toUtf8()) < 0) {
        QMessageBox::warning(this, tr("Export op diff"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
    }
}

} // namespace tracedesk::views
