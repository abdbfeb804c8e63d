// The rank picker on its own: the list and the line edit say the same choice whichever is
// edited, All / None / Shown now reset it, and a choice the run cannot show (nothing, a rank it
// lacks, text that is no rank list) is named and cannot be accepted.

#include "views/panels/distributed/rankpickerdialog.h"

#include <QDialogButtonBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using tracedesk::views::RankChoice;
using tracedesk::views::RankPickerDialog;

namespace {

std::vector<RankChoice> eightRanks()
{
    std::vector<RankChoice> ranks;
    for (int r = 0; r < 8; ++r)
        ranks.push_back({r, r == 5 ? QStringLiteral("caused 1.000 ms of waiting") : QString(),
                         r < 2});
    return ranks;
}

QPushButton *buttonNamed(RankPickerDialog &dialog, const QString &text)
{
    for (auto *b : dialog.findChildren<QPushButton *>()) {
        if (b->text().remove(QLatin1Char('&')) == text)
            return b;
    }
    return nullptr;
}

} // namespace

class TstRankPickerDialog : public QObject
{
    Q_OBJECT

private slots:
    void listAndTextAgree();
    void refusedChoices();
    void quickChoices();
};

void TstRankPickerDialog::listAndTextAgree()
{
    RankPickerDialog dialog(eightRanks());
    QCOMPARE(dialog.rankList()->count(), 8);
    QCOMPARE(dialog.chosenRanks(), (std::vector<int64_t>{0, 1}));
    QCOMPARE(dialog.choiceText(), QStringLiteral("0, 1"));
    QVERIFY(dialog.rankList()->item(5)->text().contains(QStringLiteral("caused 1.000 ms")));

    QTest::keyClicks(dialog.choiceEdit(), QStringLiteral(",4-6"));
    QCOMPARE(dialog.chosenRanks(), (std::vector<int64_t>{0, 1, 4, 5, 6}));
    QVERIFY(dialog.problemText().isEmpty());

    dialog.rankList()->item(0)->setCheckState(Qt::Unchecked);
    QCOMPARE(dialog.choiceText(), QStringLiteral("1, 4-6"));
    QVERIFY(dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
}

void TstRankPickerDialog::refusedChoices()
{
    RankPickerDialog dialog(eightRanks());
    QPushButton *ok = dialog.buttons()->button(QDialogButtonBox::Ok);
    dialog.setChoiceText(QStringLiteral("2, 9-10"));
    QCOMPARE(dialog.problemText(), QStringLiteral("This run has no rank 9, 10."));
    QVERIFY(!ok->isEnabled());
    dialog.setChoiceText(QStringLiteral("3-1"));
    QVERIFY(dialog.problemText().contains(QStringLiteral("runs backwards")));
    QVERIFY(!ok->isEnabled());
    dialog.setChoiceText(QStringLiteral("3"));
    QVERIFY(ok->isEnabled());
    QCOMPARE(dialog.chosenRanks(), (std::vector<int64_t>{3}));
    dialog.rankList()->item(3)->setCheckState(Qt::Unchecked);
    QVERIFY(!dialog.problemText().isEmpty());
    QVERIFY(!ok->isEnabled());
}

void TstRankPickerDialog::quickChoices()
{
    RankPickerDialog dialog(eightRanks());
    QPushButton *all = buttonNamed(dialog, QStringLiteral("All"));
    QPushButton *none = buttonNamed(dialog, QStringLiteral("None"));
    QPushButton *shown = buttonNamed(dialog, QStringLiteral("Shown now"));
    QVERIFY(all && none && shown);
    QTest::mouseClick(all, Qt::LeftButton);
    QCOMPARE(dialog.chosenRanks().size(), size_t(8));
    QCOMPARE(dialog.choiceText(), QStringLiteral("0-7"));
    QTest::mouseClick(none, Qt::LeftButton);
    QVERIFY(dialog.chosenRanks().empty());
    QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    QTest::mouseClick(shown, Qt::LeftButton);
    QCOMPARE(dialog.chosenRanks(), (std::vector<int64_t>{0, 1}));
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    QTest::mouseClick(dialog.buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
}

QTEST_MAIN(TstRankPickerDialog)
#include "tst_rankpickerdialog.moc"
