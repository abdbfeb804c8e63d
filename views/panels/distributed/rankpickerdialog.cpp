#include "views/panels/distributed/rankpickerdialog.h"

#include "core/io/runranks.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tracedesk::views {

namespace {
constexpr int kRankRole = Qt::UserRole + 1;
}

RankPickerDialog::RankPickerDialog(std::vector<RankChoice> ranks, QWidget *parent)
    : QDialog(parent), m_ranks(std::move(ranks))
{
    setObjectName(QStringLiteral("RankPicker"));
    setWindowTitle(tr("Ranks on Timeline"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("The timeline shows the ranks checked here; the Distributed "
                                "panel always summarises all %1 ranks of the run.")
                                 .arg(m_ranks.size()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *editRow = new QHBoxLayout;
    auto *editLabel = new QLabel(tr("&Ranks:"), this);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("RankPickerEdit"));
    m_edit->setPlaceholderText(tr("e.g. 0-3,17"));
    m_edit->setClearButtonEnabled(true);
    editLabel->setBuddy(m_edit);
    editRow->addWidget(editLabel);
    editRow->addWidget(m_edit, 1);
    layout->addLayout(editRow);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("RankPickerProblem"));
    m_problem->setWordWrap(true);
    m_problem->hide();
    layout->addWidget(m_problem);

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("RankPickerList"));
    m_list->setUniformItemSizes(true);
    for (const RankChoice &r : m_ranks) {
        QString text = tr("rank %1").arg(r.rank);
        if (!r.detail.isEmpty())
            text += QStringLiteral("  —  ") + r.detail;
        auto *item = new QListWidgetItem(text, m_list);
        item->setData(kRankRole, qint64(r.rank));
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        item->setCheckState(r.shown ? Qt::Checked : Qt::Unchecked);
    }
    layout->addWidget(m_list, 1);

    auto *quick = new QHBoxLayout;
    auto addQuick = [&](const QString &label, auto pick) {
        auto *b = new QPushButton(label, this);
        b->setAutoDefault(false);
        connect(b, &QPushButton::clicked, this, pick);
        quick->addWidget(b);
    };
    addQuick(tr("&All"), [this] {
        std::vector<int64_t> all;
        for (const RankChoice &r : m_ranks)
            all.push_back(r.rank);
        checkOnly(all);
    });
    addQuick(tr("&None"), [this] { checkOnly({}); });
    addQuick(tr("&Shown now"), [this] {
        std::vector<int64_t> shown;
        for (const RankChoice &r : m_ranks) {
            if (r.shown)
                shown.push_back(r.rank);
        }
        checkOnly(shown);
    });
    quick->addStretch(1);
    layout->addLayout(quick);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Show on Timeline"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemChanged, this, [this] { listChanged(); });
    connect(m_edit, &QLineEdit::textEdited, this, &RankPickerDialog::textEdited);
    listChanged();
    resize(420, 480);
}

std::vector<int64_t> RankPickerDialog::chosenRanks() const
{
    std::vector<int64_t> out;
    for (int i = 0; i < m_list->count(); ++i) {
        const QListWidgetItem *item = m_list->item(i);
        if (item->checkState() == Qt::Checked)
            out.push_back(item->data(kRankRole).toLongLong());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void RankPickerDialog::setChoiceText(const QString &text)
{
    m_edit->setText(text);
    textEdited(text);
}

QString RankPickerDialog::choiceText() const
{
    return m_edit->text();
}

QString RankPickerDialog::problemText() const
{
    return m_problem->text();
}

void RankPickerDialog::checkOnly(const std::vector<int64_t> &ranks)
{
    {
        const QSignalBlocker block(m_list);
        for (int i = 0; i < m_list->count(); ++i) {
            QListWidgetItem *item = m_list->item(i);
            const bool on = std::find(ranks.begin(), ranks.end(),
                                      item->data(kRankRole).toLongLong())
                            != ranks.end();
            item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        }
    }
    listChanged();
}

void RankPickerDialog::listChanged()
{
    const std::vector<int64_t> chosen = chosenRanks();
    m_edit->setText(QString::fromStdString(core::formatRankList(chosen)));
    setProblem(chosen.empty() ? tr("Choose at least one rank.") : QString());
}

void RankPickerDialog::textEdited(const QString &text)
{
    auto parsed = core::parseRankList(text.toStdString());
    if (!parsed) {
        setProblem(QString::fromStdString(parsed.message()));
        return;
    }
    std::vector<int64_t> missing;
    for (int64_t r : parsed.value()) {
        if (std::none_of(m_ranks.begin(), m_ranks.end(),
                         [r](const RankChoice &c) { return c.rank == r; }))
            missing.push_back(r);
    }
    if (!missing.empty()) {
        setProblem(tr("This run has no rank %1.")
                       .arg(QString::fromStdString(core::formatRankList(missing))));
        return;
    }
    const QSignalBlocker block(m_list);
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        const bool on = std::binary_search(parsed.value().begin(), parsed.value().end(),
                                           int64_t(item->data(kRankRole).toLongLong()));
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    setProblem({});
}

void RankPickerDialog::setProblem(const QString &problem)
{
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

} // namespace tracedesk::views
